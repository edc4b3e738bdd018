<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\Config;
use InvalidArgumentException;
use PDO;
use PHPUnit\Framework\TestCase;

final class ConfigTest extends TestCase
{
    private const VARS = [
        'DBBENCH_LAYER', 'DBBENCH_STMT', 'DBBENCH_CONN', 'DBBENCH_DB_HOST',
        'DBBENCH_DB_PORT', 'DBBENCH_DB_NAME', 'DBBENCH_DB_USER', 'DBBENCH_DB_PASSWORD', 'DBBENCH_SERVER',
        'DBBENCH_DB_DRIVER',
    ];

    protected function tearDown(): void
    {
        foreach (self::VARS as $name) {
            putenv($name);
        }
    }

    /** @param array<string, string> $vars */
    private static function env(array $vars): void
    {
        foreach ($vars as $name => $value) {
            putenv("$name=$value");
        }
    }

    public function testFromEnvironment(): void
    {
        self::env([
            'DBBENCH_LAYER' => 'orm', 'DBBENCH_STMT' => 'prepare', 'DBBENCH_CONN' => 'persistent',
            'DBBENCH_DB_HOST' => '127.0.0.1', 'DBBENCH_DB_PORT' => '3307', 'DBBENCH_DB_NAME' => 'dbbench',
            'DBBENCH_DB_USER' => 'bench', 'DBBENCH_DB_PASSWORD' => 'p=w;d"',
        ]);
        $c = Config::fromEnvironment();
        self::assertSame(['orm', 'prepare', 'persistent'], [$c->layer, $c->stmt, $c->conn]);
        self::assertSame('mysql:host=127.0.0.1;port=3307;dbname=dbbench;charset=utf8mb4', $c->pdoDsn());
        self::assertSame(['bench', 'p=w;d"'], [$c->username, $c->password]);
    }

    public function testPostgresIsPdoPgsql(): void
    {
        self::env([
            'DBBENCH_LAYER' => 'raw', 'DBBENCH_STMT' => 'interpolate', 'DBBENCH_CONN' => 'persistent',
            'DBBENCH_DB_HOST' => '127.0.0.1', 'DBBENCH_DB_PORT' => '5433', 'DBBENCH_DB_NAME' => 'dbbench',
            'DBBENCH_DB_USER' => 'bench', 'DBBENCH_DB_DRIVER' => 'pgsql',
        ]);
        $c = Config::fromEnvironment();
        self::assertTrue($c->postgres());
        self::assertSame('pgsql:host=127.0.0.1;port=5433;dbname=dbbench;sslmode=disable', $c->pdoDsn());
        putenv('DBBENCH_DB_DRIVER');
        self::assertFalse(Config::fromEnvironment()->postgres(), 'no driver is MySQL, as before drivers');
    }

    public function testServerIsFpmUnlessTold(): void
    {
        self::env(['DBBENCH_LAYER' => 'hello']);
        $c = Config::fromEnvironment();
        self::assertSame('fpm', $c->server);
        self::assertFalse($c->resident());
        self::env(['DBBENCH_SERVER' => 'worker']);
        $c = Config::fromEnvironment();
        self::assertSame('worker', $c->server);
        self::assertTrue($c->resident());
    }

    /** @return array<string, array{string, string, bool}> */
    public function residentConns(): array
    {
        return [
            'fpm, persistent: PDO keeps it' => ['fpm', 'persistent', true],
            'fpm, per-request' => ['fpm', 'per-request', false],
            'worker, persistent: the layer keeps a plain PDO' => ['worker', 'persistent', false],
            'worker, per-request' => ['worker', 'per-request', false],
        ];
    }

    /** @dataProvider residentConns */
    public function testAttrPersistentOnlyUnderFpm(string $server, string $conn, bool $attrPersistent): void
    {
        $c = new Config('raw', 'prepare', $conn, '127.0.0.1', 3306, 'dbbench', 'u', '', $server);
        self::assertSame($attrPersistent, $c->pdoOptions()[PDO::ATTR_PERSISTENT]);
        self::assertSame($conn === 'persistent', $c->keepsConnection());
    }

    /** @return array<string, array{string, string, bool, bool}> */
    public function variants(): array
    {
        return [
            'prepare, per-request' => ['prepare', 'per-request', false, false],
            'interpolate, per-request' => ['interpolate', 'per-request', true, false],
            'prepare, persistent' => ['prepare', 'persistent', false, true],
            'interpolate, persistent' => ['interpolate', 'persistent', true, true],
        ];
    }

    /** @dataProvider variants */
    public function testPdoOptions(string $stmt, string $conn, bool $emulate, bool $persistent): void
    {
        $o = (new Config('raw', $stmt, $conn, '127.0.0.1', 3306, 'dbbench', 'u'))->pdoOptions();
        self::assertSame($emulate, $o[PDO::ATTR_EMULATE_PREPARES]);
        self::assertSame($persistent, $o[PDO::ATTR_PERSISTENT]);
        self::assertSame(PDO::ERRMODE_EXCEPTION, $o[PDO::ATTR_ERRMODE]);
    }

    public function testHelloNeedsNoDatabase(): void
    {
        self::env(['DBBENCH_LAYER' => 'hello']);
        self::assertSame('hello', Config::fromEnvironment()->layer);
    }

    /** @return array<string, array{array<string, string>, string}> */
    public function misconfigurations(): array
    {
        $db = ['DBBENCH_DB_HOST' => 'h', 'DBBENCH_DB_NAME' => 'd', 'DBBENCH_DB_USER' => 'u'];
        return [
            'no layer' => [[], 'DBBENCH_LAYER is ""'],
            'unknown layer' => [['DBBENCH_LAYER' => 'gorm'], 'DBBENCH_LAYER is "gorm"'],
            'layer names are lowercase' => [['DBBENCH_LAYER' => 'Raw'], 'DBBENCH_LAYER is "Raw", want one of '],
            'prepared is Go only' => [
                $db + ['DBBENCH_LAYER' => 'raw', 'DBBENCH_STMT' => 'prepared', 'DBBENCH_CONN' => 'persistent'],
                'DBBENCH_STMT is "prepared", layer raw has prepare, interpolate',
            ],
            'unknown conn' => [
                $db + ['DBBENCH_LAYER' => 'raw', 'DBBENCH_STMT' => 'prepare', 'DBBENCH_CONN' => 'pooled'],
                'DBBENCH_CONN is "pooled", layer raw has persistent, per-request',
            ],
            'no host' => [
                ['DBBENCH_LAYER' => 'builder', 'DBBENCH_STMT' => 'prepare', 'DBBENCH_CONN' => 'persistent'],
                'DBBENCH_DB_HOST, DBBENCH_DB_NAME and DBBENCH_DB_USER must be set',
            ],
            'unknown server' => [
                ['DBBENCH_LAYER' => 'hello', 'DBBENCH_SERVER' => 'swoole'],
                'DBBENCH_SERVER is "swoole", want one of fpm, worker',
            ],
            'empty server' => [
                ['DBBENCH_LAYER' => 'hello', 'DBBENCH_SERVER' => ''],
                'DBBENCH_SERVER is "", want one of fpm, worker',
            ],
            'unknown driver' => [
                $db + ['DBBENCH_LAYER' => 'raw', 'DBBENCH_STMT' => 'prepare', 'DBBENCH_CONN' => 'persistent',
                    'DBBENCH_DB_DRIVER' => 'postgres'],
                'DBBENCH_DB_DRIVER is "postgres", want one of mysql, pgsql',
            ],
            'bad port' => [
                $db + ['DBBENCH_LAYER' => 'raw', 'DBBENCH_STMT' => 'prepare', 'DBBENCH_CONN' => 'persistent',
                    'DBBENCH_DB_PORT' => '33o6'],
                'DBBENCH_DB_PORT is "33o6"',
            ],
        ];
    }

    /**
     * @dataProvider misconfigurations
     * @param array<string, string> $vars
     */
    public function testMisconfigurationNamesTheVariable(array $vars, string $want): void
    {
        self::env($vars);
        $this->expectException(InvalidArgumentException::class);
        $this->expectExceptionMessage($want);
        Config::fromEnvironment();
    }
}
