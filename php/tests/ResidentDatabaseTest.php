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
 * COMMIT per update; one INSERT per insert; one SELECT per list). And the related-rows
 * ops (orders, listorders): every form a layer offers answers the fixture's body, in
 * the SELECTs its form means (join 1, eager 2, lazy 1 + N for a page); the orders
 * table is used as it is when there is one (P orders per user), else made for the
 * test, 10 per user, and dropped after. Runs only when
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
    /** Orders per user, once a test has made sure the orders table is there (0: not yet). */
    private static int $ordersPerUser = 0;
    /** Whether this class created the orders table, so drops it when done. */
    private static bool $madeOrders = false;
    /** The related-rows requests' page: the listorders request whose SELECTs are counted. */
    private const PAGE = 20;

    public static function tearDownAfterClass(): void
    {
        if (self::$madeOrders) {
            self::$admin?->exec('DROP TABLE orders');
            self::$madeOrders = false;
            self::$ordersPerUser = 0;
        }
    }

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

    /** @return array<string, array{string, string}> every layer that reads related rows × stmt */
    public function relatedVariants(): array
    {
        $out = [];
        foreach (Layers::all() as $name => $class) {
            $d = $class::declaration();
            foreach ($d->fetches() ? $d->stmts : [] as $stmt) {
                $out["$name/$stmt"] = [$name, $stmt];
            }
        }
        return $out;
    }

    /**
     * Every form a layer offers answers the same body, the fixture's (the end of the
     * table, a user without orders and an unknown one included), with the SELECTs the
     * form means, per request in steady state: join 1, eager 2, lazy 2 for one user and
     * 1 + N for a page (N+1). conn=persistent only: the forms' statements are the same
     * on a new connection.
     *
     * @dataProvider relatedVariants
     */
    public function testRelatedFormsAnswerTheFixturesBody(string $layer, string $stmt): void
    {
        $per = self::ordersPerUser();
        $n = self::$rows;
        self::$admin->exec("INSERT INTO users (name) VALUES ('no orders yet')");
        $empty = (int) self::$admin->lastInsertId();
        $app = App::fromConfig(self::config($layer, $stmt, 'persistent'));
        $fetch = Layers::classOf($layer)::declaration()->fetch;
        foreach ($fetch['orders'] as $form) {
            foreach ([1, self::ID, $n, $empty] as $id) {
                foreach ([1, $per, 100] as $limit) {
                    $r = self::served($app, 'GET', "/users/$id/orders?limit=$limit&fetch=$form");
                    $want = json_encode(self::withOrders($id, $limit, $per, $empty), JSON_UNESCAPED_UNICODE);
                    self::assertSame([200, $want], [$r->status, $r->body], "$form: user $id, $limit orders");
                }
            }
            $r = self::served($app, 'GET', "/users/4294967295/orders?limit=3&fetch=$form");
            self::assertSame([404, '{"error":"user 4294967295 not found"}'], [$r->status, $r->body], $form);
        }
        foreach ($fetch['listorders'] as $form) {
            $pages = [[0, self::PAGE, 3], [$n - 2, 10, 2], [41, 3, 100], [4294967295, 5, 3]];
            foreach ($pages as [$after, $limit, $each]) {
                $r = self::served($app, 'GET', "/users?after=$after&limit=$limit&orders=$each&fetch=$form");
                $later = array_filter([...range(1, $n), $empty], static fn (int $id): bool => $id > $after);
                $ids = array_slice($later, 0, $limit);
                $want = json_encode(
                    array_map(static fn (int $id): array => self::withOrders($id, $each, $per, $empty), $ids),
                    JSON_UNESCAPED_UNICODE,
                );
                self::assertSame([200, $want], [$r->status, $r->body], "$form: list after $after, $limit, $each each");
            }
        }

        foreach (['orders' => 1, 'listorders' => self::PAGE] as $op => $users) {
            foreach ($fetch[$op] as $form) {
                $counts = self::opCounts($app, static fn (int $i): array => [
                    'GET',
                    $op === 'orders'
                        ? sprintf('/users/%d/orders?limit=3&fetch=%s', 1 + $i, $form)
                        : sprintf('/users?after=%d&limit=%d&orders=3&fetch=%s', $i * 37, self::PAGE, $form),
                    '',
                ], 5);
                $want = match ($form) {
                    'join' => 1,
                    'eager' => 2,
                    'lazy' => 1 + $users, // N+1
                };
                self::assertSame(
                    [$want, 0],
                    [$counts['Com_select'], $counts['Connections']],
                    "$op $form: SELECTs and connections per request",
                );
            }
        }
    }

    /**
     * The orders per user of the orders table, made first (from schema/orders.sql, 10 per
     * fixture user, as fixtures.LoadOrders computes them) if there is none.
     */
    private static function ordersPerUser(): int
    {
        if (self::$ordersPerUser > 0) {
            return self::$ordersPerUser;
        }
        $exists = self::$admin->query(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'orders'"
        )->fetchColumn();
        if ((int) $exists === 0) {
            $sql = (string) file_get_contents(dirname(__DIR__, 2) . '/schema/orders.sql');
            self::$admin->exec($sql);
            self::$madeOrders = true;
            $ks = implode(' UNION ALL ', array_map(static fn (int $k): string => "SELECT $k AS k", range(1, 10)));
            self::$admin->exec(
                'INSERT INTO orders (id, user_id, total)'
                . ' SELECT (u.id - 1) * 10 + k.k, u.id, ((u.id - 1) * 10 + k.k) * 7919 % 100000'
                . " FROM users u CROSS JOIN ($ks) k WHERE u.id <= " . self::$rows
            );
        }
        $per = self::$admin->query('SELECT COUNT(*) FROM orders WHERE user_id = 1')->fetchColumn();
        self::$ordersPerUser = (int) $per;
        self::assertGreaterThanOrEqual(3, self::$ordersPerUser, 'orders per user');
        return self::$ordersPerUser;
    }

    /**
     * A fixture user with their latest $limit orders of $per: ids u*P down to (u-1)*P+1,
     * total(id) = id * 7919 % 100000 cents; user $empty, inserted by the test, has none.
     *
     * @return array{id: int, name: string, orders: list<array{id: int, total: int}>}
     */
    private static function withOrders(int $id, int $limit, int $per, int $empty): array
    {
        if ($id === $empty) {
            return ['id' => $id, 'name' => 'no orders yet', 'orders' => []];
        }
        $orders = [];
        for ($o = $id * $per; $o > ($id - 1) * $per && count($orders) < $limit; $o--) {
            $orders[] = ['id' => $o, 'total' => $o * 7919 % 100000];
        }
        return ['id' => $id, 'name' => self::name($id), 'orders' => $orders];
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
     * Warms the op up (so a kept connection is open), then serves it $requests times and
     * returns the counters' growth per request, each request answered 2xx.
     *
     * @param \Closure(int): array{string, string, string} $request
     * @return array<string, int|float>
     */
    private static function opCounts(App $app, \Closure $request, int $requests = self::OP_REQUESTS): array
    {
        for ($i = 0; $i < 3; $i++) {
            [$method, $uri, $body] = $request(500 + $i);
            self::served($app, $method, $uri, $body);
        }
        $before = self::status(self::OP_COUNTERS);
        for ($i = 0; $i < $requests; $i++) {
            [$method, $uri, $body] = $request($i);
            $r = self::served($app, $method, $uri, $body);
            self::assertSame(2, intdiv($r->status, 100), "$method $uri: $r->status $r->body");
        }
        $after = self::status(self::OP_COUNTERS);
        $out = [];
        foreach (self::OP_COUNTERS as $k) {
            $d = ($after[$k] - $before[$k]) / $requests;
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
