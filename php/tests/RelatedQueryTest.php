<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\BadRequest;
use DbBench\RelatedQuery;
use PHPUnit\Framework\TestCase;

/** The orders ops' query strings, read as go/server/orders.go reads them, with its words. */
final class RelatedQueryTest extends TestCase
{
    private const BAD_ESCAPE = 'bad query string: a parameter is not percent-encoded properly';

    /** @return array<string, array{string, string, array{int, string}}> */
    public function good(): array
    {
        return [
            'one user' => ['limit=10&fetch=join', 'limit', [10, 'join']],
            'any order' => ['fetch=eager&limit=1', 'limit', [1, 'eager']],
            'the most' => ['limit=100&fetch=lazy', 'limit', [100, 'lazy']],
            'a list' => ['after=5&limit=20&orders=3&fetch=lazy', 'orders', [3, 'lazy']],
            'others ignored' => ['trace=1&&limit=2&fetch=join&', 'limit', [2, 'join']],
            'orders ignored for one user' => ['orders=x&limit=2&fetch=join', 'limit', [2, 'join']],
            'encoded' => ['%6Cimit=%32&fetch=%6Aoin', 'limit', [2, 'join']],
            'any fetch: offered() judges it' => ['limit=2&fetch=', 'limit', [2, '']],
        ];
    }

    /**
     * @dataProvider good
     * @param array{int, string} $want
     */
    public function testParse(string $query, string $count, array $want): void
    {
        self::assertSame($want, RelatedQuery::parse($query, $count));
    }

    /** @return array<string, array{string, string, string}> the 400 texts of the Go targets */
    public function bad(): array
    {
        return [
            'no limit' => ['fetch=join', 'limit', 'bad limit: limit is required (1..100)'],
            'no orders' => ['limit=5&fetch=join', 'orders', 'bad orders: orders is required (1..100)'],
            'no fetch' => ['limit=5', 'limit', 'bad fetch: fetch is required (join, eager or lazy)'],
            'nothing' => ['', 'limit', 'bad limit: limit is required (1..100)'],
            'zero' => ['limit=0&fetch=join', 'limit', 'bad limit: limit must be at least 1'],
            'too many' => ['limit=101&fetch=join', 'limit', 'bad limit: limit must be at most 100'],
            'far too many' => ['orders=99999999999&fetch=join', 'orders', 'bad orders: orders must be at most 100'],
            'empty' => ['orders=&fetch=join', 'orders', 'bad orders: orders is empty'],
            'leading zero' => ['limit=03&fetch=join', 'limit', 'bad limit: limit must not have a leading zero'],
            'sign' => ['limit=-1&fetch=join', 'limit', 'bad limit: limit must contain only the digits 0-9'],
            'space' => ['limit=+1&fetch=join', 'limit', 'bad limit: limit must contain only the digits 0-9'],
            'limit twice' => ['limit=1&limit=1&fetch=join', 'limit', 'bad limit: limit is given more than once'],
            'fetch twice' => ['fetch=join&limit=1&fetch=join', 'limit', 'bad fetch: fetch is given more than once'],
            'bad escape' => ['limit=1&fetch=%zz', 'limit', self::BAD_ESCAPE],
            // Go's parseRelated decodes every pair before it looks at the name.
            'bad escape elsewhere' => ['x=%4&limit=1&fetch=join', 'limit', self::BAD_ESCAPE],
        ];
    }

    /** @dataProvider bad */
    public function testRefused(string $query, string $count, string $error): void
    {
        $this->expectException(BadRequest::class);
        $this->expectExceptionMessage($error);
        try {
            RelatedQuery::parse($query, $count);
        } catch (BadRequest $e) {
            self::assertSame($error, $e->getMessage());
            throw $e;
        }
    }

    public function testOffered(): void
    {
        RelatedQuery::offered('eager', ['join', 'eager']);
        $refusals = [
            ['lazy', ['join', 'eager'], 'bad fetch: "lazy" is not a form this layer offers (join, eager)'],
            ['', ['eager', 'lazy'], 'bad fetch: "" is not a form this layer offers (eager, lazy)'],
            ['JOIN', ['join'], 'bad fetch: "JOIN" is not a form this layer offers (join)'],
            ['join', [], 'bad fetch: this layer reads no related rows'],
        ];
        foreach ($refusals as [$fetch, $forms, $error]) {
            try {
                RelatedQuery::offered($fetch, $forms);
                self::fail("$fetch offered by " . implode(', ', $forms));
            } catch (BadRequest $e) {
                self::assertSame($error, $e->getMessage());
            }
        }
    }

    /** @return array<string, array{string, string}> */
    public function quoted(): array
    {
        return [
            'plain' => ['lazy', '"lazy"'],
            'empty' => ['', '""'],
            'quote and backslash' => ['a"b\\c', '"a\\"b\\\\c"'],
            'controls' => ["\n\t\x07\x1b\x00\x7f", '"\\n\\t\\a\\x1b\\x00\\x7f"'],
            'printable unicode' => ['é😀€', '"é😀€"'],
            'unprintable unicode' => ["\u{a0}\u{2028}\u{ad}\u{e0001}", '"\\u00a0\\u2028\\u00ad\\U000e0001"'],
            'invalid UTF-8' => ["\xff\xc3x", '"\\xff\\xc3x"'],
            // What gotarget answered for fetch=%22%5C%0A%C2%A0%E2%80%A8%F0%9F%98%80%FF%1B%7F%C3%A9.
            'as Go' => ["\"\\\n\u{a0}\u{2028}😀\xff\x1b\x7fé", '"\\"\\\\\\n\\u00a0\\u2028😀\\xff\\x1b\\x7fé"'],
        ];
    }

    /** @dataProvider quoted */
    public function testQuoteIsGos(string $s, string $want): void
    {
        self::assertSame($want, RelatedQuery::quote($s));
    }

    public function testWantsOrders(): void
    {
        self::assertTrue(RelatedQuery::wantsOrders('limit=1&orders=3'));
        self::assertTrue(RelatedQuery::wantsOrders('orders'));
        self::assertTrue(RelatedQuery::wantsOrders('orders=&limit=1'));
        self::assertFalse(RelatedQuery::wantsOrders('limit=1'));
        self::assertFalse(RelatedQuery::wantsOrders(''));
        self::assertFalse(RelatedQuery::wantsOrders('%6Frders=3&limit=1'), 'the name as sent, as Go reads it');
        self::assertFalse(RelatedQuery::wantsOrders('orders2=3&xorders=1'));
    }
}
