<?php

declare(strict_types=1);

namespace DbBench;

use Closure;
use PDOException;
use Throwable;

/**
 * What a resident app does when the connection it kept was closed while it sat idle (the
 * server restarted, killed it, or timed it out; a proxy or the network cut it): it
 * connects again and runs the read once more, as production resident apps do (Laravel's
 * Connection::tryAgainIfCausedByLostConnection, which layers builder and orm get from
 * Illuminate itself). Under php-fpm nothing changes: a layer there never starts a request
 * on a connection object of its own from an earlier request (PDO's ATTR_PERSISTENT pings
 * and reconnects by itself), so $reused is false and a failure is a 503 at once.
 *
 * Only a connection that was reused is retried, and only once: a new connection that
 * fails means the database is down or refuses us, and the client gets its 503 at once.
 */
final class Reconnect
{
    /**
     * MySQL client errors meaning the connection is gone. mysqlnd (PDO's driver) reports
     * 2006 "MySQL server has gone away" in every case tried here (MariaDB 10.11, PHP
     * 8.2): KILL CONNECTION of an idle connection or of one in a query, a proxy closing
     * the socket (FIN), the server's socket reset (RST), idle or in a query. 2013 "Lost
     * connection to MySQL server during query" is libmysqlclient's name for the in-query
     * cases; 4031 is MySQL 8.0.24+'s "disconnected by the server because of inactivity".
     * Doctrine DBAL wraps 2006 in its ConnectionLost, with the PDOException underneath.
     */
    public const LOST = [2006, 2013, 4031];

    /**
     * PostgreSQL's: pdo_pgsql reports every failure as error 7 (libpq's PGRES_FATAL_ERROR),
     * so libpq's words tell a lost connection, as Laravel's DetectsLostConnections reads
     * them. Measured here (PostgreSQL 15, PHP 8.2): pg_terminate_backend of an idle
     * connection gives the first two on its next query, "no connection to the server"
     * on the one after.
     */
    public const LOST_PGSQL = [
        'terminating connection due to administrator command',
        'server closed the connection unexpectedly',
        'no connection to the server',
    ];

    /**
     * Whether $e, or an exception it wraps, is a PDOException whose MySQL error code (or
     * PostgreSQL's words) says the connection was lost.
     */
    public static function lost(Throwable $e): bool
    {
        for ($cause = $e; $cause !== null; $cause = $cause->getPrevious()) {
            if ($cause instanceof PDOException && self::lostCode($cause->errorInfo ?? [])) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether PDO's errorInfo (SQLSTATE, driver code, driver message) says the connection
     * was lost, on MySQL or on PostgreSQL.
     *
     * @param array<int, mixed> $info
     */
    private static function lostCode(array $info): bool
    {
        $code = $info[1] ?? null;
        if (in_array($code, self::LOST, true)) {
            return true;
        }
        $message = (string) ($info[2] ?? '');
        foreach (self::LOST_PGSQL as $words) {
            if ($code === 7 && str_contains($message, $words)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Runs $read; when it fails, $drop forgets the layer's connection (a resident worker
     * must not keep a broken one). If the read began on a connection an earlier request
     * opened ($reused) and the error says that connection was lost, $read runs once more,
     * on a new connection; its failure is then final too.
     *
     * @template T
     * @param Closure(): T $read the read, connecting first when the layer has no connection
     * @param Closure(): void $drop forgets the connection, so that $read opens a new one
     * @return T
     */
    public static function once(bool $reused, Closure $read, Closure $drop): mixed
    {
        try {
            return $read();
        } catch (Throwable $e) {
            $drop();
            if (!$reused || !self::lost($e)) {
                throw $e;
            }
            // Kept in the log: a silent retry would hide a database that keeps dropping us.
            error_log(sprintf('dbbench: connection lost (%s): reading again on a new connection', $e->getMessage()));
        }
        try {
            return $read();
        } catch (Throwable $e) {
            $drop();
            throw $e;
        }
    }
}
