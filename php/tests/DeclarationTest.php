<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\Layer\Declaration;
use InvalidArgumentException;
use PHPUnit\Framework\TestCase;

final class DeclarationTest extends TestCase
{
    public function testDatabaseLayer(): void
    {
        $d = Declaration::database('orm', 'Eloquent', 'php-illuminate-database', ['interpolate'], ['persistent']);
        self::assertTrue($d->db);
        self::assertSame(['orm', 'Eloquent', 'php-illuminate-database'], [$d->kind, $d->library, $d->package]);
        self::assertSame([['interpolate'], ['persistent']], [$d->stmts, $d->conns]);
    }

    public function testNoDatabase(): void
    {
        $d = Declaration::noDatabase();
        self::assertFalse($d->db);
        self::assertSame([[], []], [$d->stmts, $d->conns]);
    }

    public function testReadsMySQLUnlessTold(): void
    {
        self::assertSame(['mysql'], Declaration::database('raw', 'L', 'p', ['prepare'], ['persistent'])->protocols);
        $both = Declaration::database('raw', 'L', 'p', ['prepare'], ['persistent'], ['mysql', 'postgres']);
        self::assertSame(['mysql', 'postgres'], $both->protocols);
    }

    public function testReadsNoRelatedRowsUnlessTold(): void
    {
        $d = Declaration::database('raw', 'L', 'p', ['prepare'], ['persistent']);
        self::assertSame(['orders' => [], 'listorders' => []], $d->fetch);
        self::assertFalse($d->fetches());
        self::assertSame(['orders' => [], 'listorders' => []], Declaration::noDatabase()->fetch);
    }

    public function testFetchForms(): void
    {
        $d = Declaration::database('orm', 'L', 'p', ['prepare'], ['persistent'], fetch: [
            'listorders' => ['eager', 'lazy'],
        ]);
        self::assertSame(['orders' => [], 'listorders' => ['eager', 'lazy']], $d->fetch);
        self::assertTrue($d->fetches());
    }

    /** @return array<string, array{array<mixed>, string}> */
    public function badFetches(): array
    {
        return [
            'unknown op' => [['list' => ['join']], 'fetch op "list", want orders or listorders'],
            'a bare list' => [['join'], 'fetch op "0"'],
            'unknown form' => [['orders' => ['preload']], 'orders fetch mode "preload", PHP knows join, eager, lazy'],
            'repeated form' => [['listorders' => ['join', 'join']], 'listorders fetch modes must be a non-empty list'],
        ];
    }

    /**
     * @dataProvider badFetches
     * @param array<mixed> $fetch
     */
    public function testFetchRefused(array $fetch, string $want): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->expectExceptionMessage($want);
        Declaration::database('raw', 'L', 'p', ['prepare'], ['persistent'], fetch: $fetch);
    }

    public function testUnknownProtocolRefused(): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->expectExceptionMessage('protocol mode "oracle", PHP knows mysql, postgres');
        Declaration::database('raw', 'L', 'p', ['prepare'], ['persistent'], ['oracle']);
    }

    /** @return array<string, array{string, string, string, list<mixed>, list<mixed>, string}> */
    public function bad(): array
    {
        $ok = ['prepare'];
        $conn = ['persistent'];
        return [
            'unknown kind' => ['dao', 'L', 'p', $ok, $conn, 'kind "dao"'],
            'no library' => ['raw', '', 'p', $ok, $conn, 'names its library'],
            'no package' => ['raw', 'L', '', $ok, $conn, 'names its library and its Debian package'],
            'no stmt' => ['raw', 'L', 'p', [], $conn, 'stmt modes must be a non-empty list'],
            'prepared: not yet' => ['raw', 'L', 'p', ['prepared'], $conn, 'stmt mode "prepared"'],
            'repeated conn' => ['raw', 'L', 'p', $ok, ['persistent', 'persistent'], 'conn modes must be'],
            'unknown conn' => ['raw', 'L', 'p', $ok, ['pooled'], 'conn mode "pooled", PHP knows persistent, per-'],
            'not a string' => ['raw', 'L', 'p', [1], $conn, 'stmt mode "int"'],
        ];
    }

    /**
     * @dataProvider bad
     * @param list<mixed> $stmts
     * @param list<mixed> $conns
     */
    public function testRefused(string $kind, string $lib, string $pkg, array $stmts, array $conns, string $want): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->expectExceptionMessage($want);
        Declaration::database($kind, $lib, $pkg, $stmts, $conns);
    }
}
