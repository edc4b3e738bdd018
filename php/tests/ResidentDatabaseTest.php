<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\App;
use DbBench\Config;
use DbBench\Layers;
use PDO;
use PDOException;
use PHPUnit\Framework\TestCase;

/**
 * Every database layer as a resident worker runs it (DBBENCH_SERVER=worker): one App
 * per process, built once, GET /users/42 a hundred times with endRequest() between,
 * against a real MariaDB. It checks the bodies and the MySQL commands per request from
 * SHOW GLOBAL STATUS deltas (the figures of php/README.md), and that a layer whose
 * connection the server kills recovers. Runs only when DBBENCH_TEST_DB_HOST, _PORT,
 * _NAME, _USER and _PASSWORD name a dbbench database (rows 1..N with N >= 42, a user
 * allowed SHOW GLOBAL STATUS and KILL) that nothing else uses meanwhile: the counters are
 * global:
 *
 *     DBBENCH_TEST_DB_HOST=127.0.0.1 … phpunit --filter ResidentDatabaseTest
 */
final class ResidentDatabaseTest extends TestCase
{
    private const REQUESTS = 100;
    private const WARM_UP = 5;
    private const ID = 42;
    /** What SHOW GLOBAL STATUS shows of a request's commands (Com_admin_commands: COM_PING). */
    private const COUNTERS = [
        'Connections', 'Com_select', 'Com_stmt_prepare', 'Com_stmt_execute', 'Com_stmt_close',
        'Com_change_db', 'Com_set_option', 'Com_admin_commands',
    ];
    /** How long a condition on the server's state may take to hold: a hang guard. */
    private const WAIT = 30.0;
    private static ?PDO $admin = null;
    /** Prepared_stmt_count before any worker of this class ran: what other clients hold. */
    private static ?int $otherStatements = null;

    protected function setUp(): void
    {
        if (getenv('DBBENCH_TEST_DB_HOST') === false) {
            self::markTestSkipped('set DBBENCH_TEST_DB_HOST, _PORT, _NAME, _USER, _PASSWORD to run against MariaDB');
        }
        self::$admin ??= new PDO(
            sprintf(
                'mysql:host=%s;port=%d;dbname=%s',
                getenv('DBBENCH_TEST_DB_HOST'),
                (int) getenv('DBBENCH_TEST_DB_PORT'),
                getenv('DBBENCH_TEST_DB_NAME'),
            ),
            (string) getenv('DBBENCH_TEST_DB_USER'),
            (string) getenv('DBBENCH_TEST_DB_PASSWORD'),
            [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION],
        );
        self::$otherStatements ??= self::preparedStatements();
    }

    private static function config(string $layer, string $stmt, string $conn): Config
    {
        return new Config(
            $layer,
            $stmt,
            $conn,
            (string) getenv('DBBENCH_TEST_DB_HOST'),
            (int) getenv('DBBENCH_TEST_DB_PORT'),
            (string) getenv('DBBENCH_TEST_DB_NAME'),
            (string) getenv('DBBENCH_TEST_DB_USER'),
            (string) getenv('DBBENCH_TEST_DB_PASSWORD'),
            'worker',
        );
    }

    /** @return array<string, array{string, string, string}> every database layer × stmt × conn */
    public function variants(): array
    {
        $out = [];
        foreach (Layers::all() as $name => $class) {
            $d = $class::declaration();
            foreach ($d->db ? $d->stmts : [] as $stmt) {
                foreach ($d->conns as $conn) {
                    $out["$name/$stmt/$conn"] = [$name, $stmt, $conn];
                }
            }
        }
        return $out;
    }

    /** @dataProvider variants */
    public function testOneAppServesManyRequests(string $layer, string $stmt, string $conn): void
    {
        $before = self::status();
        $app = App::fromConfig(self::config($layer, $stmt, $conn));
        self::serve($app, self::WARM_UP);
        $warm = self::status();
        self::serve($app, self::REQUESTS);
        $after = self::status();

        $perRequest = $conn === 'per-request';
        $newConnections = $perRequest ? self::WARM_UP : 1;
        self::assertSame(
            $newConnections,
            $warm['Connections'] - $before['Connections'],
            'start-up: connections opened',
        );
        // What the library sends on each new connection (Laravel: `use db`, then `set
        // names` and `set session sql_mode`), learnt from the warm-up: one or none.
        $connect = intdiv($warm['Com_change_db'] - $before['Com_change_db'], $newConnections);
        self::assertContains($connect, [0, 1], 'statements per new connection');

        // Steady state: the counts of php/README.md, per request.
        $prepared = $stmt === 'prepare' ? 1 : 0;
        $statements = $perRequest ? $connect : 0; // Laravel's, on each new connection
        $want = [
            'Connections' => $perRequest ? 1 : 0,
            'Com_select' => 1,
            'Com_stmt_prepare' => $prepared * (1 + 2 * $statements),
            'Com_stmt_execute' => $prepared * (1 + 2 * $statements),
            'Com_stmt_close' => $prepared * (1 + 2 * $statements),
            'Com_change_db' => $statements,
            'Com_set_option' => 2 * $statements,
            'Com_admin_commands' => 0, // no COM_PING: the worker's connection is a plain one
        ];
        $got = [];
        foreach (self::COUNTERS as $k) {
            $got[$k] = ($after[$k] - $warm[$k]) / self::REQUESTS;
        }
        self::assertEquals($want, $got, 'commands per request in steady state');
    }

    /** @return array<string, array{string, string, string}> the variants that keep a connection */
    public function persistentVariants(): array
    {
        return array_filter($this->variants(), static fn (array $v): bool => $v[2] === 'persistent');
    }

    /**
     * The server kills the worker's connection while it is idle: no request fails. The
     * next read gets 2006 "MySQL server has gone away" and runs again on a new connection
     * (DbBench\Reconnect for raw, dbal and doctrine; Illuminate's own retry for builder
     * and orm), which the layer then keeps.
     *
     * @dataProvider persistentVariants
     */
    public function testRecoversWhenTheServerKillsItsConnection(string $layer, string $stmt, string $conn): void
    {
        $app = App::fromConfig(self::config($layer, $stmt, $conn));
        self::serve($app, 1);
        $ids = self::$admin->query(
            'SELECT id FROM information_schema.processlist'
            . " WHERE id <> CONNECTION_ID() AND user = SUBSTRING_INDEX(CURRENT_USER(), '@', 1)"
        )->fetchAll(PDO::FETCH_COLUMN);
        self::assertNotEmpty($ids, 'the worker keeps a connection');
        foreach ($ids as $id) {
            try {
                self::$admin->exec('KILL CONNECTION ' . (int) $id);
            } catch (PDOException $e) {
                // 1094 "Unknown thread id": a connection of an earlier test's app, which
                // was closing as it was listed. Nothing else may fail.
                if (($e->errorInfo[1] ?? 0) !== 1094) {
                    throw $e;
                }
            }
        }

        $statuses = [];
        $log = tempnam(sys_get_temp_dir(), 'dbbench-resident-');
        $oldLog = ini_set('error_log', $log);
        // mysqlnd warns ("MySQL server has gone away") before PDO throws: a worker logs
        // it; here it must not become PHPUnit's exception.
        set_error_handler(static fn (): bool => true, E_WARNING);
        try {
            for ($i = 0; $i < 3; $i++) {
                $statuses[] = $app->handle('GET', '/users/' . self::ID)->status;
                $app->endRequest();
            }
        } finally {
            restore_error_handler();
            ini_set('error_log', (string) $oldLog);
            unlink($log);
        }
        self::assertSame([200, 200, 200], $statuses);
        // KILL only marks a connection: its thread ends when it next runs, and is listed
        // (as Killed) until then. Once every killed one has left the list, what is left
        // of the worker's is the connection it opened since.
        $killed = array_map('intval', $ids);
        $left = self::until(static function () use ($killed): ?array {
            $rows = self::$admin->query(
                'SELECT id, command FROM information_schema.processlist'
                . " WHERE id <> CONNECTION_ID() AND user = SUBSTRING_INDEX(CURRENT_USER(), '@', 1)"
            )->fetchAll(PDO::FETCH_KEY_PAIR);
            foreach ($rows as $id => $command) {
                if ($command === 'Killed' || in_array((int) $id, $killed, true)) {
                    return null;
                }
            }
            return $rows;
        }, 'the killed connections to end');
        self::assertCount(1, $left, 'one new connection, kept: ' . json_encode($left));
    }

    /** Serves GET /users/42 $n times, as a worker does, checking every answer. */
    private static function serve(App $app, int $n): void
    {
        $want = json_encode(['id' => self::ID, 'name' => self::name(self::ID)], JSON_UNESCAPED_UNICODE);
        for ($i = 0; $i < $n; $i++) {
            $r = $app->handle('GET', '/users/' . self::ID);
            self::assertSame([200, $want], [$r->status, $r->body]);
            $app->endRequest();
        }
    }

    /**
     * The counters, once the server has run every command the worker sent. All but one
     * get a reply before the layer goes on; Close stmt gets none, so the last request's
     * may still be on its way when the request has ended. No layer keeps a statement
     * from one request to the next, so once the server has closed them all it holds no
     * more than the other clients do. (A Quit gets no reply either, but counts in
     * nothing read here.) Prepared_stmt_count is read by itself, before the counters:
     * one SHOW GLOBAL STATUS does not read all its rows at one instant.
     *
     * @return array<string, int>
     */
    private static function status(): array
    {
        self::until(
            static fn (): ?bool => self::preparedStatements() === self::$otherStatements ?: null,
            sprintf('the server to close the statements of the worker (others hold %d)', self::$otherStatements),
        );
        $rows = self::$admin->query('SHOW GLOBAL STATUS')->fetchAll(PDO::FETCH_KEY_PAIR);
        $out = [];
        foreach (self::COUNTERS as $k) {
            $out[$k] = (int) $rows[$k];
        }
        return $out;
    }

    /** Prepared statements the server holds, for every client. */
    private static function preparedStatements(): int
    {
        return (int) self::$admin->query("SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'")->fetchColumn(1);
    }

    /**
     * Polls $check until it returns non-null, failing after WAIT seconds.
     *
     * @template T
     * @param callable(): (T|null) $check
     * @return T
     */
    private static function until(callable $check, string $what): mixed
    {
        $deadline = microtime(true) + self::WAIT;
        while (($result = $check()) === null) {
            if (microtime(true) > $deadline) {
                self::fail(sprintf('gave up after %.0f s waiting for %s', self::WAIT, $what));
            }
            usleep(10_000);
        }
        return $result;
    }

    /** The fixture's name(id), as fixtures/README.md specifies it (fixtures/name.go). */
    private static function name(int $id): string
    {
        $first = ['Ada', 'Alan', 'Barbara', 'Chloë', 'Dennis', 'Edsger', 'Frances', 'Grace',
            'Hedy', 'Ken', 'Linus', 'Margaret', 'Niklaus', 'Radia', 'Søren', 'Zoë'];
        $last = ['Allen', 'Backus', 'Codd', 'Dijkstra', 'Floyd', 'Gray', 'Hamilton', 'Hopper',
            'Knuth', 'Lamarr', 'Liskov', 'Müller', 'Perlman', 'Ritchie', 'Thompson', 'Wirth'];
        $h = ($id * 2654435761) & 0xFFFFFFFF;
        return $first[$h >> 28] . ' ' . $last[($h >> 24) & 15] . ' #' . $id;
    }
}
