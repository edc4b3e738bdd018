<?php

declare(strict_types=1);

namespace DbBench\Layer;

use DbBench\Config;
use DbBench\Reconnect;
use PDO;
use Throwable;

/**
 * PDO alone: every op is SQL written by hand, prepared, bound and executed.
 *
 * Related rows (Related) by hand, as go/layers/raw/orders.go writes them: join, one
 * LEFT JOIN (for a page, the page in a derived table, each user's latest kept in PHP);
 * eager, the user(s) and then their orders in one statement (a page's with IN (…));
 * lazy, for a page only, a loop: one statement prepared once and executed per user
 * (1 + N). For one user lazy would be eager's two statements again, so it is not offered.
 *
 * Under php-fpm a new PDO object per request, as every PHP app there has: with
 * ATTR_PERSISTENT the fpm child's connection is reused (PDO pings it first), without it
 * the connection is opened and closed within the request. A resident worker keeps one
 * plain PDO object for its life (persistent) or drops it after each request, and runs
 * a statement once more on a new connection when the one it kept was lost (Reconnect);
 * for update only its first statement (the transaction's begin), before which nothing
 * can have been written.
 *
 * Self-contained on purpose (Layer.php): its declaration, set-up and error handling
 * mirror Dbal.php.
 */
final class Raw implements Layer, Related
{
    private const QUERY = 'SELECT id, name FROM users WHERE id = ?';
    private const LIST = 'SELECT id, name FROM users WHERE id > ? ORDER BY id LIMIT ?';
    private const INSERT = 'INSERT INTO users (name) VALUES (?)';
    /** PostgreSQL returns the new id with the row: what a person writes there by hand. */
    private const INSERT_RETURNING = 'INSERT INTO users (name) VALUES (?) RETURNING id';
    private const LOCK = 'SELECT visits FROM users WHERE id = ? FOR UPDATE';
    private const UPDATE = 'UPDATE users SET visits = ? WHERE id = ?';
    /** One user's latest orders in one statement: LEFT JOIN, so a user without orders is one row of NULLs. */
    private const ORDERS_JOIN = 'SELECT u.id, u.name, o.id, o.total FROM users u LEFT JOIN orders o ON o.user_id = u.id'
        . ' WHERE u.id = ? ORDER BY o.id DESC LIMIT ?';
    /** One user's latest orders: eager's second statement for one user, lazy's per user. */
    private const ORDERS = 'SELECT id, total FROM orders WHERE user_id = ? ORDER BY id DESC LIMIT ?';
    /**
     * A page of users with all their orders; each user's latest are kept in PHP (a
     * LIMIT per user would need a window function or LATERAL, which MariaDB lacks).
     */
    private const LIST_ORDERS_JOIN = 'SELECT u.id, u.name, o.id, o.total'
        . ' FROM (SELECT id, name FROM users WHERE id > ? ORDER BY id LIMIT ?) u'
        . ' LEFT JOIN orders o ON o.user_id = u.id ORDER BY u.id, o.id DESC';
    /** Eager's second statement for a page: every order of its users, %s the page's placeholders. */
    private const ORDERS_IN = 'SELECT user_id, id, total FROM orders WHERE user_id IN (%s) ORDER BY user_id, id DESC';

    /** Opened on first use: a layer that is never asked for a user never connects. */
    private ?PDO $pdo = null;

    public static function declaration(): Declaration
    {
        return Declaration::database(
            kind: 'raw',
            library: 'PDO',
            package: 'php8.2-mysql',
            stmts: ['prepare', 'interpolate'],
            conns: ['persistent', 'per-request'],
            protocols: ['mysql', 'postgres'],
            fetch: [
                'orders' => [self::JOIN, self::EAGER],
                'listorders' => [self::JOIN, self::EAGER, self::LAZY],
            ],
        );
    }

    public function __construct(private readonly Config $config)
    {
    }

    public function user(int $id): ?array
    {
        $row = Reconnect::once($this->pdo !== null, fn () => $this->query($id), $this->disconnect(...));
        if ($row === false) {
            return null;
        }
        return ['id' => (int) $row['id'], 'name' => (string) $row['name']];
    }

    public function users(int $after, int $limit): array
    {
        $rows = Reconnect::once($this->pdo !== null, fn () => $this->list($after, $limit), $this->disconnect(...));
        $users = [];
        foreach ($rows as $row) {
            $users[] = ['id' => (int) $row['id'], 'name' => (string) $row['name']];
        }
        return $users;
    }

    public function insert(string $name): array
    {
        $id = Reconnect::once($this->pdo !== null, fn () => $this->insertRow($name), $this->disconnect(...));
        return ['id' => $id, 'name' => $name];
    }

    /** BEGIN, SELECT … FOR UPDATE, UPDATE, COMMIT (ROLLBACK for an unknown id). */
    public function visit(int $id): ?array
    {
        $pdo = Reconnect::once($this->pdo !== null, fn () => $this->begin(), $this->disconnect(...));
        try {
            $stmt = $pdo->prepare(self::LOCK);
            $stmt->bindValue(1, $id, PDO::PARAM_INT);
            $stmt->execute();
            $visits = $stmt->fetchColumn();
            if ($visits === false) {
                $pdo->rollBack();
                return null;
            }
            $visits = (int) $visits + 1;
            $stmt = $pdo->prepare(self::UPDATE);
            $stmt->bindValue(1, $visits, PDO::PARAM_INT);
            $stmt->bindValue(2, $id, PDO::PARAM_INT);
            $stmt->execute();
            $pdo->commit();
        } catch (Throwable $e) {
            $this->abandon($pdo);
            throw $e;
        }
        return ['id' => $id, 'visits' => $visits];
    }

    /**
     * The statements of a form run in one closure: when the kept connection was lost,
     * the first one fails and the whole read runs again on a new connection.
     */
    public function userOrders(int $id, int $limit, string $fetch): ?array
    {
        if ($fetch === self::JOIN) {
            $rows = Reconnect::once(
                $this->pdo !== null,
                fn () => $this->rows(self::ORDERS_JOIN, [$id, $limit]),
                $this->disconnect(...),
            );
            return self::joined($rows, $limit)[0] ?? null;
        }
        return Reconnect::once($this->pdo !== null, fn () => $this->eagerOne($id, $limit), $this->disconnect(...));
    }

    public function usersWithOrders(int $after, int $limit, int $per, string $fetch): array
    {
        return Reconnect::once($this->pdo !== null, fn (): array => match ($fetch) {
            self::JOIN => self::joined($this->rows(self::LIST_ORDERS_JOIN, [$after, $limit]), $per),
            self::EAGER => $this->eagerList($after, $limit, $per),
            self::LAZY => $this->lazyList($after, $limit, $per),
        }, $this->disconnect(...));
    }

    /**
     * The query: prepare, bind, execute, fetch (connecting first when there is no
     * connection). A method of its own, as connect() is, because a sampling profile
     * (Excimer) sees PHP frames only: PDO's work is the time of the method that calls it.
     *
     * @return array<string, mixed>|false
     */
    private function query(int $id): array|false
    {
        $this->pdo ??= $this->connect();
        $stmt = $this->pdo->prepare(self::QUERY);
        $stmt->bindValue(1, $id, PDO::PARAM_INT);
        $stmt->execute();
        return $stmt->fetch(PDO::FETCH_ASSOC);
    }

    /** @return list<array<string, mixed>> */
    private function list(int $after, int $limit): array
    {
        $this->pdo ??= $this->connect();
        $stmt = $this->pdo->prepare(self::LIST);
        $stmt->bindValue(1, $after, PDO::PARAM_INT);
        $stmt->bindValue(2, $limit, PDO::PARAM_INT);
        $stmt->execute();
        return $stmt->fetchAll(PDO::FETCH_ASSOC);
    }

    /**
     * A statement's rows as lists: a join's two id columns would collide in FETCH_ASSOC.
     *
     * @param list<int> $args
     * @return list<list<mixed>>
     */
    private function rows(string $sql, array $args): array
    {
        $this->pdo ??= $this->connect();
        $stmt = $this->pdo->prepare($sql);
        foreach ($args as $i => $arg) {
            $stmt->bindValue($i + 1, $arg, PDO::PARAM_INT);
        }
        $stmt->execute();
        return $stmt->fetchAll(PDO::FETCH_NUM);
    }

    /**
     * Eager for one user: the user, then their latest orders.
     *
     * @return array{id: int, name: string, orders: list<array{id: int, total: int}>}|null
     */
    private function eagerOne(int $id, int $limit): ?array
    {
        $row = $this->query($id);
        if ($row === false) {
            return null;
        }
        $orders = [];
        foreach ($this->rows(self::ORDERS, [$id, $limit]) as [$orderId, $total]) {
            $orders[] = ['id' => (int) $orderId, 'total' => (int) $total];
        }
        return ['id' => (int) $row['id'], 'name' => (string) $row['name'], 'orders' => $orders];
    }

    /**
     * Eager for a page: the users, then all their orders in one statement, each user's
     * latest $per kept.
     *
     * @return list<array{id: int, name: string, orders: list<array{id: int, total: int}>}>
     */
    private function eagerList(int $after, int $limit, int $per): array
    {
        $users = [];
        foreach ($this->list($after, $limit) as $row) {
            $users[(int) $row['id']] = ['id' => (int) $row['id'], 'name' => (string) $row['name'], 'orders' => []];
        }
        if ($users === []) {
            return [];
        }
        $ids = array_keys($users);
        $sql = sprintf(self::ORDERS_IN, implode(',', array_fill(0, count($ids), '?')));
        foreach ($this->rows($sql, $ids) as [$userId, $orderId, $total]) {
            if (count($users[(int) $userId]['orders']) < $per) {
                $users[(int) $userId]['orders'][] = ['id' => (int) $orderId, 'total' => (int) $total];
            }
        }
        return array_values($users);
    }

    /**
     * Lazy for a page: the users, then a statement per user (1 + N), prepared once and
     * executed for each, as a loop over PDO is written.
     *
     * @return list<array{id: int, name: string, orders: list<array{id: int, total: int}>}>
     */
    private function lazyList(int $after, int $limit, int $per): array
    {
        $users = $this->list($after, $limit);
        if ($users === []) {
            return [];
        }
        $stmt = $this->pdo->prepare(self::ORDERS);
        $out = [];
        foreach ($users as $row) {
            $stmt->bindValue(1, (int) $row['id'], PDO::PARAM_INT);
            $stmt->bindValue(2, $per, PDO::PARAM_INT);
            $stmt->execute();
            $orders = [];
            foreach ($stmt->fetchAll(PDO::FETCH_NUM) as [$orderId, $total]) {
                $orders[] = ['id' => (int) $orderId, 'total' => (int) $total];
            }
            $out[] = ['id' => (int) $row['id'], 'name' => (string) $row['name'], 'orders' => $orders];
        }
        return $out;
    }

    /**
     * A join's rows (user id, name, order id, total) as users in order, each with their
     * first $per orders; NULL order columns: a user without orders.
     *
     * @param list<list<mixed>> $rows
     * @return list<array{id: int, name: string, orders: list<array{id: int, total: int}>}>
     */
    private static function joined(array $rows, int $per): array
    {
        $users = [];
        $i = -1;
        foreach ($rows as [$id, $name, $orderId, $total]) {
            if ($i < 0 || $users[$i]['id'] !== (int) $id) {
                $users[++$i] = ['id' => (int) $id, 'name' => (string) $name, 'orders' => []];
            }
            if ($orderId !== null && count($users[$i]['orders']) < $per) {
                $users[$i]['orders'][] = ['id' => (int) $orderId, 'total' => (int) $total];
            }
        }
        return $users;
    }

    /**
     * One INSERT in autocommit. MySQL's answer carries the id (lastInsertId() sends no
     * query); on PostgreSQL it would send SELECT LASTVAL(), so the INSERT returns the id.
     */
    private function insertRow(string $name): int
    {
        $this->pdo ??= $this->connect();
        $postgres = $this->config->postgres();
        $stmt = $this->pdo->prepare($postgres ? self::INSERT_RETURNING : self::INSERT);
        $stmt->bindValue(1, $name, PDO::PARAM_STR);
        $stmt->execute();
        return (int) ($postgres ? $stmt->fetchColumn() : $this->pdo->lastInsertId());
    }

    private function begin(): PDO
    {
        $this->pdo ??= $this->connect();
        $this->pdo->beginTransaction();
        return $this->pdo;
    }

    /** After a failure inside a transaction: roll it back if the connection still can, forget the connection. */
    private function abandon(PDO $pdo): void
    {
        try {
            if ($pdo->inTransaction()) {
                $pdo->rollBack();
            }
        } catch (Throwable) {
            // The connection is gone: the server has rolled back already.
        }
        $this->disconnect();
    }

    /**
     * Connection set-up: a new PDO object. Without ATTR_PERSISTENT that is TCP, the
     * handshake and authentication; with it (php-fpm, conn=persistent), taking up the fpm
     * child's connection and its COM_PING.
     */
    private function connect(): PDO
    {
        return new PDO(
            $this->config->pdoDsn(),
            $this->config->username,
            $this->config->password,
            $this->config->pdoOptions(),
        );
    }

    /** Forgets the connection: dropping the last reference sends Quit and closes it. */
    private function disconnect(): void
    {
        $this->pdo = null;
    }

    public function endRequest(): void
    {
        if (!$this->config->keepsConnection()) {
            $this->disconnect();
        }
    }
}
