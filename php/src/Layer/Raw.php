<?php

declare(strict_types=1);

namespace DbBench\Layer;

use DbBench\Config;
use PDO;

/**
 * PDO alone. A new PDO object per request, as every PHP app under php-fpm has: with
 * ATTR_PERSISTENT the worker's connection is reused (PDO pings it first), without it
 * the connection is opened and closed within the request.
 */
final class Raw implements Layer
{
    private const QUERY = 'SELECT id, name FROM users WHERE id = ?';

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
        $pdo = new PDO(
            $this->config->pdoDsn(),
            $this->config->username,
            $this->config->password,
            $this->config->pdoOptions(),
        );
        $stmt = $pdo->prepare(self::QUERY);
        $stmt->bindValue(1, $id, PDO::PARAM_INT);
        $stmt->execute();
        $row = $stmt->fetch(PDO::FETCH_ASSOC);
        if ($row === false) {
            return null;
        }
        return ['id' => (int) $row['id'], 'name' => (string) $row['name']];
    }
}
