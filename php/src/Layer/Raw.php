<?php

declare(strict_types=1);

namespace DbBench\Layer;

use DbBench\Config;
use PDO;
use PDOException;

/**
 * PDO alone. Under php-fpm a new PDO object per request, as every PHP app there has:
 * with ATTR_PERSISTENT the fpm child's connection is reused (PDO pings it first),
 * without it the connection is opened and closed within the request. A resident worker
 * keeps one plain PDO object for its life (persistent) or drops it after each request.
 */
final class Raw implements Layer
{
    private const QUERY = 'SELECT id, name FROM users WHERE id = ?';

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
        );
    }

    public function __construct(private readonly Config $config)
    {
    }

    public function user(int $id): ?array
    {
        try {
            $this->pdo ??= new PDO(
                $this->config->pdoDsn(),
                $this->config->username,
                $this->config->password,
                $this->config->pdoOptions(),
            );
            $stmt = $this->pdo->prepare(self::QUERY);
            $stmt->bindValue(1, $id, PDO::PARAM_INT);
            $stmt->execute();
            $row = $stmt->fetch(PDO::FETCH_ASSOC);
        } catch (PDOException $e) {
            // A resident worker must not keep a broken connection: the next request
            // connects afresh (the database may be back by then).
            $this->pdo = null;
            throw $e;
        }
        if ($row === false) {
            return null;
        }
        return ['id' => (int) $row['id'], 'name' => (string) $row['name']];
    }

    public function endRequest(): void
    {
        if (!$this->config->keepsConnection()) {
            $this->pdo = null; // the last reference: PDO sends Quit and closes the socket
        }
    }
}
