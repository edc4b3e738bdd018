<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\BadId;
use DbBench\UserId;
use PHPUnit\Framework\TestCase;

final class UserIdTest extends TestCase
{
    /** @return array<string, array{string, int}> */
    public function validIds(): array
    {
        return [
            'one' => ['1', 1],
            'typical' => ['42', 42],
            'ten digits' => ['1000000000', 1000000000],
            'largest' => ['4294967295', 4294967295],
        ];
    }

    /** @dataProvider validIds */
    public function testValid(string $raw, int $want): void
    {
        self::assertSame($want, UserId::parse($raw));
    }

    /**
     * The bad ids the Go targets reject (runners/measure/target tests send them to every target),
     * and more; the reasons are go/server/id.go's.
     *
     * @return array<string, array{string, string}>
     */
    public function badIds(): array
    {
        $digits = 'id must contain only the digits 0-9';
        $tooLarge = 'id must be at most 4294967295';
        return [
            'letters' => ['abc', $digits],
            'negative' => ['-1', $digits],
            'zero' => ['0', 'id must be at least 1'],
            'decimal' => ['1.5', $digits],
            'too big' => ['99999999999', $tooLarge],
            'one past 32 bits' => ['4294967296', $tooLarge],
            'sql' => ['1;DROP TABLE users', $digits],
            'quote' => ["'", $digits],
            'still encoded' => ['%27', $digits],
            'empty' => ['', 'id is empty'],
            '10 kB of digits' => [str_repeat('9', 10240), $tooLarge],
            'leading zero' => ['007', 'id must not have a leading zero'],
            '10 kB of zeros then 1' => [str_repeat('0', 10240) . '1', 'id must not have a leading zero'],
            'plus sign' => ['+1', $digits],
            'space' => [' 1', $digits],
            'trailing newline' => ["1\n", $digits],
            'NUL' => ["1\0", $digits],
            'hex' => ['0x10', $digits],
            'exponent' => ['1e3', $digits],
            'arabic-indic digits' => ['١٢', $digits],
        ];
    }

    /** @dataProvider badIds */
    public function testBad(string $raw, string $reason): void
    {
        $this->expectException(BadId::class);
        $this->expectExceptionMessage($reason);
        UserId::parse($raw);
    }
}
