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
final class Raw implements Layer
{
    private const QUERY = 'SELECT id, name FROM users WHERE id = ?';
    private const LIST = 'SELECT id, name FROM users WHERE id > ? ORDER BY id LIMIT ?';
    private const INSERT = 'INSERT INTO users (name) VALUES (?)';
    /** PostgreSQL returns the new id with the row: what a person writes there by hand. */
    private const INSERT_RETURNING = 'INSERT INTO users (name) VALUES (?) RETURNING id';
    private const LOCK = 'SELECT visits FROM users WHERE id = ? FOR UPDATE';
    private const UPDATE = 'UPDATE users SET visits = ? WHERE id = ?';

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
