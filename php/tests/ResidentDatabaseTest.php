<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\App;
use DbBench\Config;
use DbBench\Layers;
use DbBench\Response;
use PDO;
use PDOException;
use PHPUnit\Framework\TestCase;

/**
 * Every database layer as a resident worker runs it (DBBENCH_SERVER=worker): one App
 * per process, built once, GET /users/42 a hundred times with endRequest() between,
 * against a real MariaDB. It checks the bodies and the MySQL commands per request from
 * SHOW GLOBAL STATUS deltas (the figures of php/README.md), and that a layer whose
 * connection the server kills recovers. Then the ops: list against the fixture function,
 * insert read back, update counted, and what each op costs (one BEGIN, one UPDATE and one
 * COMMIT per update; one INSERT per insert; one SELECT per list). Runs only when
 * DBBENCH_TEST_DB_HOST, _PORT, _NAME, _USER and _PASSWORD name a dbbench database (rows
 * 1..N with N >= 1000, a user allowed SHOW GLOBAL STATUS, KILL, INSERT, UPDATE and
 * DELETE) that nothing else uses meanwhile: the counters are global. The rows the
 * inserts add are deleted and the visits set back to 0 after each test (the
 * AUTO_INCREMENT counter stays where the inserts left it):
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
    /** The ops' statement counters, by their SHOW GLOBAL STATUS names. */
    private const OP_COUNTERS = [
        'Connections', 'Com_select', 'Com_insert', 'Com_update', 'Com_begin', 'Com_commit', 'Com_rollback',
        'Com_admin_commands',
    ];
    private const OP_REQUESTS = 20;
    private static ?PDO $admin = null;
    /** Prepared_stmt_count before any worker of this class ran: what other clients hold. */
    private static ?int $otherStatements = null;

    /** The fixture rows N: the largest id before any insert of this test. */
    private static int $rows = 0;

    /** Back to the fixture rows after every test: the next one lists the table's end. */
    protected function tearDown(): void
    {
        if (self::$admin !== null && self::$rows > 0) {
            self::$admin->exec('DELETE FROM users WHERE id > ' . self::$rows);
            self::$admin->exec('UPDATE users SET visits = 0 WHERE visits <> 0');
        }
    }

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
        if (self::$rows === 0) {
            self::$rows = (int) self::$admin->query('SELECT MAX(id) FROM users')->fetchColumn();
        }
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
            self::kill((int) $id);
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

    /**
     * The ops on one App as a worker serves them: list bodies against the fixture
     * function, the end of the table included; inserts that read back; visits that count;
     * and, in steady state, what each op costs per request.
     *
     * @dataProvider variants
     */
    public function testOpsOnOneApp(string $layer, string $stmt, string $conn): void
    {
        $n = self::$rows;
        $app = App::fromConfig(self::config($layer, $stmt, $conn));
        foreach ([[0, 10], [41, 100], [$n - 5, 10], [$n, 5]] as [$after, $limit]) {
            $r = self::served($app, 'GET', "/users?after=$after&limit=$limit");
            self::assertSame([200, self::listBody($after, $limit)], [$r->status, $r->body], "list $after $limit");
        }
        $name = 'Zoë ' . $layer . ' ' . str_repeat('é', 40);
        $r = self::served($app, 'POST', '/users', json_encode(['name' => $name], JSON_THROW_ON_ERROR));
        self::assertSame(201, $r->status, $r->body);
        $id = json_decode($r->body, true, 4, JSON_THROW_ON_ERROR)['id'];
        self::assertGreaterThan($n, $id);
        self::assertSame('/users/' . $id, $r->headers['Location']);
        $want = json_encode(['id' => $id, 'name' => $name], JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR);
        self::assertSame($want, $r->body);
        self::assertSame($want, self::served($app, 'GET', "/users/$id")->body);
        $before = (int) self::$admin->query('SELECT visits FROM users WHERE id = 42')->fetchColumn();
        foreach ([1, 2] as $i) {
            $r = self::served($app, 'POST', '/users/42/visits');
            self::assertSame([200, sprintf('{"id":42,"visits":%d}', $before + $i)], [$r->status, $r->body]);
        }
        self::assertSame(404, self::served($app, 'POST', '/users/4294967295/visits')->status);

        $perRequest = $conn === 'per-request' ? 1 : 0;
        $list = self::opCounts($app, static fn (int $i): array => ['GET', '/users?limit=10&after=' . $i * 37, '']);
        self::assertSame(1, $list['Com_select'], 'list: one SELECT per request');
        $insert = self::opCounts($app, static fn (int $i): array => ['POST', '/users', '{"name":"w #' . $i . '"}']);
        self::assertSame(1, $insert['Com_insert'], 'insert: one INSERT per request');
        self::assertSame(0, $insert['Com_update'], 'insert: no UPDATE');
        $update = self::opCounts($app, static fn (int $i): array => ['POST', '/users/' . (1 + $i) . '/visits', '']);
        self::assertSame(
            [1, 1, 1, 0],
            [$update['Com_begin'], $update['Com_update'], $update['Com_commit'], $update['Com_rollback']],
            'update: one BEGIN, one UPDATE, one COMMIT per request',
        );
        self::assertGreaterThanOrEqual(1, $update['Com_select'], 'update: the locking read');
        foreach ([$list, $insert, $update] as $counts) {
            self::assertSame($perRequest, $counts['Connections'], 'connections per request');
            self::assertSame(0, $counts['Com_admin_commands'], 'no COM_PING');
        }
    }

    /**
     * The server kills a kept connection before each op: the op still succeeds, on a new
     * connection (for update, Reconnect or Illuminate retries the begin).
     *
     * @dataProvider persistentVariants
     */
    public function testOpsRecoverWhenTheServerKillsTheirConnection(string $layer, string $stmt, string $conn): void
    {
        $app = App::fromConfig(self::config($layer, $stmt, $conn));
        self::served($app, 'GET', '/users/' . self::ID);
        $requests = [
            ['GET', '/users?after=10&limit=3', '', 200],
            ['POST', '/users', '{"name":"after a kill"}', 201],
            ['POST', '/users/' . self::ID . '/visits', '', 200],
        ];
        set_error_handler(static fn (): bool => true, E_WARNING); // mysqlnd's "gone away" warning
        $oldLog = ini_set('error_log', '/dev/null');
        try {
            foreach ($requests as [$method, $uri, $body, $status]) {
                $ids = self::$admin->query(
                    'SELECT id FROM information_schema.processlist'
                    . " WHERE id <> CONNECTION_ID() AND user = SUBSTRING_INDEX(CURRENT_USER(), '@', 1)"
                )->fetchAll(PDO::FETCH_COLUMN);
                self::assertNotEmpty($ids, 'the worker keeps a connection');
                foreach ($ids as $id) {
                    self::kill((int) $id);
                }
                $r = self::served($app, $method, $uri, $body);
                self::assertSame($status, $r->status, "$method $uri after a kill: $r->body");
            }
        } finally {
            ini_set('error_log', (string) $oldLog);
            restore_error_handler();
        }
    }

    /**
     * Kills a connection. One that ended between the list and the kill (an earlier
     * test's app's, still closing) is already what the kill wants: MariaDB answers 1094
     * "Unknown thread id". Nothing else may fail. (testOpsRecover... lacked this and
     * failed in one of five fresh-clone runs.)
     */
    private static function kill(int $id): void
    {
        try {
            self::$admin->exec('KILL CONNECTION ' . $id);
        } catch (PDOException $e) {
            if ((int) ($e->errorInfo[1] ?? 0) !== 1094) {
                throw $e;
            }
        }
    }

    /** One request as a worker serves it: handle(), then endRequest(). */
    private static function served(App $app, string $method, string $uri, string $body = ''): Response
    {
        $r = $app->handle($method, $uri, $body);
        $app->endRequest();
        return $r;
    }

    /**
     * Warms the op up (so a kept connection is open), then serves it OP_REQUESTS times and
     * returns the counters' growth per request, each request answered 2xx.
     *
     * @param \Closure(int): array{string, string, string} $request
     * @return array<string, int|float>
     */
    private static function opCounts(App $app, \Closure $request): array
    {
        for ($i = 0; $i < 3; $i++) {
            [$method, $uri, $body] = $request(500 + $i);
            self::served($app, $method, $uri, $body);
        }
        $before = self::status(self::OP_COUNTERS);
        for ($i = 0; $i < self::OP_REQUESTS; $i++) {
            [$method, $uri, $body] = $request($i);
            $r = self::served($app, $method, $uri, $body);
            self::assertSame(2, intdiv($r->status, 100), "$method $uri: $r->status $r->body");
        }
        $after = self::status(self::OP_COUNTERS);
        $out = [];
        foreach (self::OP_COUNTERS as $k) {
            $d = ($after[$k] - $before[$k]) / self::OP_REQUESTS;
            $out[$k] = $d == (int) $d ? (int) $d : $d;
        }
        return $out;
    }

    /** The exact body of GET /users?after=&limit= on the fixture rows. */
    private static function listBody(int $after, int $limit): string
    {
        $users = [];
        for ($id = $after + 1; $id <= self::$rows && count($users) < $limit; $id++) {
            $users[] = ['id' => $id, 'name' => self::name($id)];
        }
        return json_encode($users, JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR);
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
     * @param list<string> $counters
     * @return array<string, int>
     */
    private static function status(array $counters = self::COUNTERS): array
    {
        self::until(
            static fn (): ?bool => self::preparedStatements() === self::$otherStatements ?: null,
            sprintf('the server to close the statements of the worker (others hold %d)', self::$otherStatements),
        );
        $rows = self::$admin->query('SHOW GLOBAL STATUS')->fetchAll(PDO::FETCH_KEY_PAIR);
        $out = [];
        foreach ($counters as $k) {
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
