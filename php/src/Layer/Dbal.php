<?php

declare(strict_types=1);

namespace DbBench\Layer;

use DbBench\Config;
use DbBench\DatabaseError;
use DbBench\Library;
use DbBench\Reconnect;
use Doctrine\DBAL\Connection;
use Doctrine\DBAL\DriverManager;
use Doctrine\DBAL\Exception as DbalException;
use Doctrine\DBAL\ParameterType;

/**
 * Doctrine DBAL (Debian's php-doctrine-dbal 3.6) over its pdo_mysql driver:
 * `fetchAssociative('SELECT id, name FROM users WHERE id = ?', [$id], [ParameterType::INTEGER])`.
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
 */
final class Dbal implements Layer
{
    private const QUERY = 'SELECT id, name FROM users WHERE id = ?';

    private ?Connection $connection = null;

    public static function declaration(): Declaration
    {
        return Declaration::database(
            kind: 'raw',
            library: 'Doctrine DBAL',
            package: 'php-doctrine-dbal',
            stmts: ['prepare', 'interpolate'],
            conns: ['persistent', 'per-request'],
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

    /**
     * DBAL's connection parameters: its pdo_mysql driver, so the same PDO with the same
     * DSN and options as layer raw (DBAL passes driverOptions to PDO's constructor,
     * ATTR_PERSISTENT included).
     *
     * @return array<string, mixed>
     */
    public static function params(Config $config): array
    {
        return [
            'driver' => 'pdo_mysql',
            'host' => $config->host,
            'port' => $config->port,
            'dbname' => $config->database,
            'user' => $config->username,
            'password' => $config->password,
            'charset' => 'utf8mb4',
            'driverOptions' => $config->pdoOptions(),
        ];
    }

    public function endRequest(): void
    {
        if (!$this->config->keepsConnection()) {
            $this->connection?->close(); // drops the PDO object: Quit
        }
    }
}
