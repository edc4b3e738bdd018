<?php

declare(strict_types=1);

namespace DbBench\Layer;

use DbBench\Config;
use DbBench\Reconnect;
use PDO;

/**
 * PDO alone. Under php-fpm a new PDO object per request, as every PHP app there has:
 * with ATTR_PERSISTENT the fpm child's connection is reused (PDO pings it first),
 * without it the connection is opened and closed within the request. A resident worker
 * keeps one plain PDO object for its life (persistent) or drops it after each request,
 * and reads once more on a new connection when the one it kept was lost (Reconnect).
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
        $row = Reconnect::once($this->pdo !== null, fn () => $this->query($id), $this->disconnect(...));
        if ($row === false) {
            return null;
        }
        return ['id' => (int) $row['id'], 'name' => (string) $row['name']];
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
