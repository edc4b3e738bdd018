<?php

declare(strict_types=1);

namespace DbBench\Layer;

use DbBench\Config;
use DbBench\DatabaseError;
use DbBench\Library;
use DbBench\Reconnect;
use Doctrine\DBAL\ArrayParameterType;
use Doctrine\DBAL\Connection;
use Doctrine\DBAL\Driver\Exception as DriverException;
use Doctrine\DBAL\DriverManager;
use Doctrine\DBAL\Exception as DbalException;
use Doctrine\DBAL\ParameterType;
use Throwable;

/**
 * Doctrine DBAL (Debian's php-doctrine-dbal 3.6) over its pdo_mysql driver:
 * `fetchAssociative('SELECT id, name FROM users WHERE id = ?', [$id], [ParameterType::INTEGER])`
 * (get), fetchAllAssociative of a keyset page (list), executeStatement of an INSERT and
 * lastInsertId() (insert), and between beginTransaction() and commit() a fetchOne of
 * `… FOR UPDATE` and an executeStatement of the UPDATE (update).
 *
 * Related rows (Related) with raw's SQL and forms: fetchAllNumeric of the join (one
 * user; a page in a derived table, each user's latest kept in PHP); eager, the user(s)
 * then fetchAllNumeric of their orders (a page's with `user_id IN (?)` and
 * ArrayParameterType::INTEGER, which DBAL expands to one placeholder per id); lazy, for
 * a page only, prepare() once and the Statement's executeQuery() per user (1 + N), as
 * raw's loop runs the same PDO statement.
 *
 * Kind raw: the SQL is written by hand, as with PDO; DBAL adds its connection object,
 * parameter typing, result wrapper and exception conversion, and nothing that writes SQL
 * (its QueryBuilder is not used). So dbal against raw is the price of that wrapper over
 * the same PDO calls, not of a query builder.
 *
 * The PDO underneath gets the variant's options as DBAL's driverOptions (emulated
 * prepares for stmt=interpolate; ATTR_PERSISTENT for conn=persistent under php-fpm).
 * DBAL connects lazily, on the first query, and sends nothing of its own at connect:
 * the charset is in the DSN, the platform comes from the handshake's server version.
 * A resident worker keeps the Connection (persistent) or close()s it after each
 * request (per-request), after which DBAL connects again on the next query; when the
 * connection it kept was lost it reads once more on a new one (Reconnect).
 *
 * Self-contained on purpose (Layer.php): its declaration, set-up and error handling
 * mirror Raw.php.
 */
final class Dbal implements Layer, Related
{
    private const QUERY = 'SELECT id, name FROM users WHERE id = ?';
    private const LIST = 'SELECT id, name FROM users WHERE id > ? ORDER BY id LIMIT ?';
    private const INSERT = 'INSERT INTO users (name) VALUES (?)';
    private const LOCK = 'SELECT visits FROM users WHERE id = ? FOR UPDATE';
    private const UPDATE = 'UPDATE users SET visits = ? WHERE id = ?';
    /** Raw's statements (Raw.php says why each is so). */
    private const ORDERS_JOIN = 'SELECT u.id, u.name, o.id, o.total FROM users u LEFT JOIN orders o ON o.user_id = u.id'
        . ' WHERE u.id = ? ORDER BY o.id DESC LIMIT ?';
    private const ORDERS = 'SELECT id, total FROM orders WHERE user_id = ? ORDER BY id DESC LIMIT ?';
    private const LIST_ORDERS_JOIN = 'SELECT u.id, u.name, o.id, o.total'
        . ' FROM (SELECT id, name FROM users WHERE id > ? ORDER BY id LIMIT ?) u'
        . ' LEFT JOIN orders o ON o.user_id = u.id ORDER BY u.id, o.id DESC';
    /** One "?" for the list of ids: DBAL expands it. */
    private const ORDERS_IN = 'SELECT user_id, id, total FROM orders WHERE user_id IN (?) ORDER BY user_id, id DESC';

    private ?Connection $connection = null;

    public static function declaration(): Declaration
    {
        return Declaration::database(
            kind: 'raw',
            library: 'Doctrine DBAL',
            package: 'php-doctrine-dbal',
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
        if ($this->connection === null) {
            Library::load(DriverManager::class, 'Doctrine/DBAL/autoload.php', 'php-doctrine-dbal');
            $this->connection = DriverManager::getConnection(self::params($this->config));
        }
        $connection = $this->connection;
        try {
            // DBAL connects on the first query and again after close().
            $row = Reconnect::once(
                $connection->isConnected(),
                fn () => $connection->fetchAssociative(self::QUERY, [$id], [ParameterType::INTEGER]),
                $connection->close(...), // a resident worker must not keep a broken connection
            );
        } catch (DbalException $e) {
            throw DatabaseError::from($e);
        }
        if ($row === false) {
            return null;
        }
        return ['id' => (int) $row['id'], 'name' => (string) $row['name']];
    }

    public function users(int $after, int $limit): array
    {
        $connection = $this->connection();
        try {
            $rows = Reconnect::once(
                $connection->isConnected(),
                fn () => $connection->fetchAllAssociative(
                    self::LIST,
                    [$after, $limit],
                    [ParameterType::INTEGER, ParameterType::INTEGER],
                ),
                $connection->close(...),
            );
        } catch (DbalException $e) {
            throw DatabaseError::from($e);
        }
        $users = [];
        foreach ($rows as $row) {
            $users[] = ['id' => (int) $row['id'], 'name' => (string) $row['name']];
        }
        return $users;
    }

    public function insert(string $name): array
    {
        $connection = $this->connection();
        try {
            $id = Reconnect::once(
                $connection->isConnected(),
                static function () use ($connection, $name): int {
                    $connection->executeStatement(self::INSERT, [$name], [ParameterType::STRING]);
                    return (int) $connection->lastInsertId();
                },
                $connection->close(...),
            );
        } catch (DbalException $e) {
            throw DatabaseError::from($e);
        }
        return ['id' => $id, 'name' => $name];
    }

    /**
     * The form's statements in one closure: when the kept connection was lost, the first
     * fails and the whole read runs again on a new connection.
     */
    public function userOrders(int $id, int $limit, string $fetch): ?array
    {
        $connection = $this->connection();
        try {
            return Reconnect::once(
                $connection->isConnected(),
                static fn (): ?array => match ($fetch) {
                    self::JOIN => self::joined($connection->fetchAllNumeric(
                        self::ORDERS_JOIN,
                        [$id, $limit],
                        [ParameterType::INTEGER, ParameterType::INTEGER],
                    ), $limit)[0] ?? null,
                    self::EAGER => self::eagerOne($connection, $id, $limit),
                },
                $connection->close(...),
            );
        } catch (DbalException $e) {
            throw DatabaseError::from($e);
        }
    }

    public function usersWithOrders(int $after, int $limit, int $per, string $fetch): array
    {
        $connection = $this->connection();
        try {
            return Reconnect::once(
                $connection->isConnected(),
                static fn (): array => match ($fetch) {
                    self::JOIN => self::joined($connection->fetchAllNumeric(
                        self::LIST_ORDERS_JOIN,
                        [$after, $limit],
                        [ParameterType::INTEGER, ParameterType::INTEGER],
                    ), $per),
                    self::EAGER => self::eagerList($connection, $after, $limit, $per),
                    self::LAZY => self::lazyList($connection, $after, $limit, $per),
                },
                $connection->close(...),
            );
        } catch (DbalException $e) {
            throw DatabaseError::from($e);
        }
    }

    /** @return array{id: int, name: string, orders: list<array{id: int, total: int}>}|null */
    private static function eagerOne(Connection $connection, int $id, int $limit): ?array
    {
        $row = $connection->fetchAssociative(self::QUERY, [$id], [ParameterType::INTEGER]);
        if ($row === false) {
            return null;
        }
        $orders = [];
        $rows = $connection->fetchAllNumeric(
            self::ORDERS,
            [$id, $limit],
            [ParameterType::INTEGER, ParameterType::INTEGER],
        );
        foreach ($rows as [$orderId, $total]) {
            $orders[] = ['id' => (int) $orderId, 'total' => (int) $total];
        }
        return ['id' => (int) $row['id'], 'name' => (string) $row['name'], 'orders' => $orders];
    }

    /**
     * The page, then all its users' orders in one statement, each user's latest $per kept.
     *
     * @return list<array{id: int, name: string, orders: list<array{id: int, total: int}>}>
     */
    private static function eagerList(Connection $connection, int $after, int $limit, int $per): array
    {
        $users = [];
        $page = $connection->fetchAllAssociative(
            self::LIST,
            [$after, $limit],
            [ParameterType::INTEGER, ParameterType::INTEGER],
        );
        foreach ($page as $row) {
            $users[(int) $row['id']] = ['id' => (int) $row['id'], 'name' => (string) $row['name'], 'orders' => []];
        }
        if ($users === []) {
            return [];
        }
        $rows = $connection->fetchAllNumeric(self::ORDERS_IN, [array_keys($users)], [ArrayParameterType::INTEGER]);
        foreach ($rows as [$userId, $orderId, $total]) {
            if (count($users[(int) $userId]['orders']) < $per) {
                $users[(int) $userId]['orders'][] = ['id' => (int) $orderId, 'total' => (int) $total];
            }
        }
        return array_values($users);
    }

    /**
     * The page, then a statement per user (1 + N): prepared once, executed for each.
     *
     * @return list<array{id: int, name: string, orders: list<array{id: int, total: int}>}>
     */
    private static function lazyList(Connection $connection, int $after, int $limit, int $per): array
    {
        $page = $connection->fetchAllAssociative(
            self::LIST,
            [$after, $limit],
            [ParameterType::INTEGER, ParameterType::INTEGER],
        );
        if ($page === []) {
            return [];
        }
        $stmt = $connection->prepare(self::ORDERS);
        $out = [];
        foreach ($page as $row) {
            $stmt->bindValue(1, (int) $row['id'], ParameterType::INTEGER);
            $stmt->bindValue(2, $per, ParameterType::INTEGER);
            $orders = [];
            foreach ($stmt->executeQuery()->fetchAllNumeric() as [$orderId, $total]) {
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
     * DBAL's explicit transaction: beginTransaction() (read once more on a new connection
     * when the kept one was lost: nothing is written before it), fetchOne of the locking
     * read, executeStatement of the UPDATE, commit(); rollBack() for an unknown id or a
     * failure. DBAL 3.6 passes the driver's exceptions of begin, commit and rollBack
     * through unconverted (Driver\Exception, not DBAL's Exception): both are a 503.
     */
    public function visit(int $id): ?array
    {
        $connection = $this->connection();
        try {
            Reconnect::once($connection->isConnected(), $connection->beginTransaction(...), $connection->close(...));
            try {
                $visits = $connection->fetchOne(self::LOCK, [$id], [ParameterType::INTEGER]);
                if ($visits === false) {
                    $connection->rollBack();
                    return null;
                }
                $visits = (int) $visits + 1;
                $connection->executeStatement(
                    self::UPDATE,
                    [$visits, $id],
                    [ParameterType::INTEGER, ParameterType::INTEGER],
                );
                $connection->commit();
            } catch (Throwable $e) {
                self::abandon($connection);
                throw $e;
            }
        } catch (DbalException | DriverException $e) {
            throw DatabaseError::from($e);
        }
        return ['id' => $id, 'visits' => $visits];
    }

    /** After a failure inside a transaction: roll back if the connection still can, close it. */
    public static function abandon(Connection $connection): void
    {
        try {
            if ($connection->isTransactionActive()) {
                $connection->rollBack();
            }
        } catch (Throwable) {
            // The connection is gone: the server has rolled back already.
        }
        $connection->close();
    }

    private function connection(): Connection
    {
        if ($this->connection === null) {
            Library::load(DriverManager::class, 'Doctrine/DBAL/autoload.php', 'php-doctrine-dbal');
            $this->connection = DriverManager::getConnection(self::params($this->config));
        }
        return $this->connection;
    }

    /**
     * DBAL's connection parameters: its pdo_mysql (or pdo_pgsql) driver, so the same PDO with the same
     * DSN and options as layer raw (DBAL passes driverOptions to PDO's constructor,
     * ATTR_PERSISTENT included).
     *
     * @return array<string, mixed>
     */
    public static function params(Config $config): array
    {
        $params = [
            'driver' => 'pdo_mysql',
            'host' => $config->host,
            'port' => $config->port,
            'dbname' => $config->database,
            'user' => $config->username,
            'password' => $config->password,
            'charset' => 'utf8mb4',
            'driverOptions' => $config->pdoOptions(),
        ];
        if ($config->postgres()) {
            // pdo_pgsql: the same DSN as layer raw's (Config::pdoDsn), UTF8 by default.
            $params['driver'] = 'pdo_pgsql';
            $params['sslmode'] = 'disable';
            unset($params['charset']);
        }
        return $params;
    }

    public function endRequest(): void
    {
        if (!$this->config->keepsConnection()) {
            $this->connection?->close(); // drops the PDO object: Quit
        }
    }
}
