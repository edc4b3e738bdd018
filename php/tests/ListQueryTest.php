<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\BadRequest;
use DbBench\ListQuery;
use PHPUnit\Framework\TestCase;

/** GET /users's query string: the cases of go/server/ops_test.go, the same answers. */
final class ListQueryTest extends TestCase
{
    /** @return array<string, array{string, int, int}> */
    public function valid(): array
    {
        return [
            'limit only' => ['limit=10', 0, 10],
            'after 0' => ['after=0&limit=1', 0, 1],
            'the largest limit' => ['after=990&limit=1000', 990, 1000],
            'the largest after' => ['limit=100&after=4294967295', 4294967295, 100],
            'percent-encoded' => ['after=%34%32&limit=1%30', 42, 10],
            'others ignored' => ['limit=5&x=1&&after=3&trace', 3, 5],
        ];
    }

    /** @dataProvider valid */
    public function testValid(string $query, int $after, int $limit): void
    {
        self::assertSame([$after, $limit], ListQuery::parse($query));
    }

    /** @return array<string, array{string, string}> */
    public function invalid(): array
    {
        $limitDigits = 'bad limit: limit must contain only the digits 0-9';
        $afterDigits = 'bad after: after must contain only the digits 0-9';
        $escape = 'bad query string: a parameter is not percent-encoded properly';
        return [
            'nothing' => ['', 'bad limit: limit is required (1..1000)'],
            'after only' => ['after=5', 'bad limit: limit is required (1..1000)'],
            'empty limit' => ['limit=', 'bad limit: limit is empty'],
            'bare limit' => ['limit', 'bad limit: limit is empty'],
            'zero' => ['limit=0', 'bad limit: limit must be at least 1'],
            'over' => ['limit=1001', 'bad limit: limit must be at most 1000'],
            'far over' => ['limit=99999999999', 'bad limit: limit must be at most 1000'],
            'leading zero' => ['limit=010', 'bad limit: limit must not have a leading zero'],
            'negative' => ['limit=-1', $limitDigits],
            'plus is a space' => ['limit=+1', $limitDigits],
            'exponent' => ['limit=1e2', $limitDigits],
            'array' => ['limit[]=1', 'bad limit: limit is required (1..1000)'],
            'bad escape' => ['limit=%zz', $escape],
            'bad escape in a name' => ['%zz=1&limit=1', $escape],
            'limit twice' => ['limit=1&limit=2', 'bad limit: limit is given more than once'],
            'after twice' => ['after=1&after=1&limit=2', 'bad after: after is given more than once'],
            'empty after' => ['after=&limit=2', 'bad after: after is empty'],
            'negative after' => ['after=-1&limit=2', $afterDigits],
            'after 00' => ['after=00&limit=2', 'bad after: after must not have a leading zero'],
            'after too large' => ['after=4294967296&limit=2', 'bad after: after must be at most 4294967295'],
            'zeros' => ['after=' . str_repeat('0', 5000) . '1&limit=2', 'bad after: after must not have a leading zero'],
            'sql' => ['after=1;DROP%20TABLE%20users&limit=2', $afterDigits],
        ];
    }

    /** @dataProvider invalid */
    public function testInvalid(string $query, string $error): void
    {
        $this->expectException(BadRequest::class);
        $this->expectExceptionMessage($error);
        ListQuery::parse($query);
    }
}
