<?php

declare(strict_types=1);

namespace DbBench\Layer;

use DbBench\Config;
use DbBench\DatabaseError;
use DbBench\Library;
use DbBench\Reconnect;
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
final class Dbal implements Layer
{
    private const QUERY = 'SELECT id, name FROM users WHERE id = ?';
    private const LIST = 'SELECT id, name FROM users WHERE id > ? ORDER BY id LIMIT ?';
    private const INSERT = 'INSERT INTO users (name) VALUES (?)';
    private const LOCK = 'SELECT visits FROM users WHERE id = ? FOR UPDATE';
    private const UPDATE = 'UPDATE users SET visits = ? WHERE id = ?';

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
