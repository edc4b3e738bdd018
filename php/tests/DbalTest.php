<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\Config;
use DbBench\Layer\Dbal;
use PDO;
use PHPUnit\Framework\TestCase;

/** Layer dbal hands DBAL the PDO that layer raw builds. */
final class DbalTest extends TestCase
{
    /** @return array<string, array{string, string, bool}> server, conn, ATTR_PERSISTENT */
    public function conns(): array
    {
        return [
            'fpm persistent' => ['fpm', 'persistent', true],
            'fpm per-request' => ['fpm', 'per-request', false],
            'worker persistent' => ['worker', 'persistent', false],
            'worker per-request' => ['worker', 'per-request', false],
        ];
    }

    /** @dataProvider conns */
    public function testParamsAreRawsPdo(string $server, string $conn, bool $attrPersistent): void
    {
        $c = new Config('dbal', 'interpolate', $conn, '127.0.0.1', 3307, 'dbbench', 'u', 'p', $server);
        self::assertSame([
            'driver' => 'pdo_mysql',
            'host' => '127.0.0.1',
            'port' => 3307,
            'dbname' => 'dbbench',
            'user' => 'u',
            'password' => 'p',
            'charset' => 'utf8mb4',
            'driverOptions' => [
                PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION,
                PDO::ATTR_EMULATE_PREPARES => true,
                PDO::ATTR_PERSISTENT => $attrPersistent,
            ],
        ], Dbal::params($c));
        self::assertSame($c->pdoOptions(), Dbal::params($c)['driverOptions']);
    }
}
