<?php

declare(strict_types=1);

namespace DbBench\Layer;

use DbBench\Config;
use DbBench\Illuminate;
use DbBench\Model\User;
use Illuminate\Database\Capsule\Manager as Capsule;
use PDOException;

/**
 * Eloquent: User::find($id) (src/Model/User.php).
 *
 * Under php-fpm the Capsule is set up and Eloquent booted in every request. A resident
 * worker does both once: conn=persistent keeps the connection, conn=per-request
 * disconnects it after each request. Eloquent keeps no identity map: nothing else of a
 * request outlives it.
 */
final class Orm implements Layer
{
    private ?Capsule $capsule = null;

    public static function declaration(): Declaration
    {
        return Declaration::database(
            kind: 'orm',
            library: 'Eloquent',
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
        if ($this->capsule === null) {
            $this->capsule = Illuminate::capsule($this->config);
            $this->capsule->bootEloquent();
        }
        try {
            $user = User::find($id);
        } catch (PDOException $e) {
            // Illuminate's QueryException is one. Illuminate has already run the query
            // once more on a new connection if the error said the connection was lost
            // (tryAgainIfCausedByLostConnection). A resident worker starts afresh.
            $this->capsule->getDatabaseManager()->disconnect();
            throw $e;
        }
        if ($user === null) {
            return null;
        }
        return ['id' => $user->id, 'name' => $user->name];
    }

    public function endRequest(): void
    {
        if (!$this->config->keepsConnection()) {
            $this->capsule?->getDatabaseManager()->disconnect();
        }
    }
}
