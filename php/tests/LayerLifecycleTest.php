<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\App;
use DbBench\Config;
use DbBench\Layers;
use PHPUnit\Framework\TestCase;

/**
 * What every database layer must allow without a database: constructing it and ending a
 * request that never asked for a user neither connects nor fails (a resident worker
 * builds the App before any request, and may end a request that was a 400 or /hello).
 */
final class LayerLifecycleTest extends TestCase
{
    /** @return array<string, array{string, string, string}> */
    public function variants(): array
    {
        $out = [];
        foreach (Layers::all() as $name => $class) {
            $d = $class::declaration();
            foreach ($d->db ? $d->stmts : ['none'] as $stmt) {
                foreach ($d->db ? $d->conns : ['none'] as $conn) {
                    foreach (Config::SERVERS as $server) {
                        $out["$server/$name/$stmt/$conn"] = [$name, $stmt, $conn, $server];
                    }
                }
            }
        }
        return $out;
    }

    /** @dataProvider variants */
    public function testEndRequestBeforeAnyQueryNeedsNoDatabase(
        string $layer,
        string $stmt,
        string $conn,
        string $server,
    ): void {
        // Port 1 on loopback: any connection attempt would fail at once.
        $config = new Config($layer, $stmt, $conn, '127.0.0.1', 1, 'dbbench', 'u', 'p', $server);
        $app = App::fromConfig($config);
        $app->endRequest();
        $app->endRequest();
        self::assertSame(200, $app->handle('GET', '/hello')->status);
        $app->endRequest();
        // A bad id never reaches the layer (hello has no /users/ at all: 404).
        self::assertSame($layer === 'hello' ? 404 : 400, $app->handle('GET', '/users/x')->status);
        $app->endRequest();
    }
}
