<?php

declare(strict_types=1);

namespace DbBench\Layer;

use DbBench\Config;
use DbBench\Illuminate;
use Illuminate\Database\Capsule\Manager as Capsule;
use PDOException;

/**
 * Illuminate's query builder: table('users')->where('id', $id)->first().
 *
 * Under php-fpm the Capsule (and its PDO object, and Laravel's connect-time statements)
 * is new in every request. A resident worker builds it once: conn=persistent keeps its
 * connection, conn=per-request disconnects it after each request, and Laravel connects
 * again (with its statements) on the next query.
 */
final class Builder implements Layer
{
    private ?Capsule $capsule = null;

    public static function declaration(): Declaration
    {
        return Declaration::database(
            kind: 'builder',
            library: 'Illuminate query builder',
            package: 'php-illuminate-database',
            stmts: ['prepare', 'interpolate'],
            conns: ['persistent', 'per-request'],
        );
    }

    public function __construct(private readonly Config $config)
    {
    }

    public function user(int $id): ?array
    {
        $this->capsule ??= Illuminate::capsule($this->config);
        try {
            $row = $this->capsule->getConnection()->table('users')->where('id', $id)->first();
        } catch (PDOException $e) {
            // Illuminate's QueryException is one. Illuminate has already run the query
            // once more on a new connection if the error said the connection was lost
            // (tryAgainIfCausedByLostConnection). A resident worker starts afresh.
            $this->capsule->getDatabaseManager()->disconnect();
            throw $e;
        }
        if ($row === null) {
            return null;
        }
        return ['id' => (int) $row->id, 'name' => (string) $row->name];
    }

    public function endRequest(): void
    {
        if (!$this->config->keepsConnection()) {
            $this->capsule?->getDatabaseManager()->disconnect();
        }
    }
}
