<?php

declare(strict_types=1);

namespace DbBench\Layer;

use Closure;
use DbBench\Config;
use DbBench\Illuminate;
use Illuminate\Database\Capsule\Manager as Capsule;
use Illuminate\Database\Connection;
use PDOException;

/**
 * Illuminate's query builder: table('users')->where('id', $id)->first() (get),
 * ->where('id', '>', $after)->orderBy('id')->limit($n)->get() (list), insertGetId()
 * (insert), and in transaction() a ->lockForUpdate()->first() and an update() (update).
 *
 * Under php-fpm the Capsule (and its PDO object, and Laravel's connect-time statements)
 * is new in every request. A resident worker builds it once: conn=persistent keeps its
 * connection, conn=per-request disconnects it after each request, and Laravel connects
 * again (with its statements) on the next query.
 *
 * Self-contained on purpose (Layer.php): its declaration, set-up and error handling
 * mirror Orm.php (the same Capsule).
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
            protocols: ['mysql', 'postgres'],
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

    public function users(int $after, int $limit): array
    {
        $rows = $this->run(static fn (Connection $db): iterable => $db->table('users')
            ->where('id', '>', $after)
            ->orderBy('id')
            ->limit($limit)
            ->get());
        $users = [];
        foreach ($rows as $row) {
            $users[] = ['id' => (int) $row->id, 'name' => (string) $row->name];
        }
        return $users;
    }

    public function insert(string $name): array
    {
        $id = $this->run(static fn (Connection $db): int => (int) $db->table('users')->insertGetId(['name' => $name]));
        return ['id' => $id, 'name' => $name];
    }

    /**
     * Laravel's transaction(): BEGIN, the closure, COMMIT (ROLLBACK if it throws); inside,
     * `select * from users where id = ? limit 1 for update` and `update users set visits = ?
     * where id = ?`. An unknown id commits the empty transaction, as transaction() does
     * with a closure that returns.
     */
    public function visit(int $id): ?array
    {
        return $this->run(static fn (Connection $db): ?array => $db->transaction(
            static function (Connection $db) use ($id): ?array {
                $row = $db->table('users')->where('id', $id)->lockForUpdate()->first();
                if ($row === null) {
                    return null;
                }
                $visits = (int) $row->visits + 1;
                $db->table('users')->where('id', $id)->update(['visits' => $visits]);
                return ['id' => $id, 'visits' => $visits];
            }
        ));
    }

    /**
     * Runs $op on the connection, as user() runs its read. Illuminate has already run a
     * statement once more on a new connection if the error said the connection was lost
     * (tryAgainIfCausedByLostConnection; for a transaction, its begin only); when it
     * still fails, a resident worker starts afresh.
     *
     * @template T
     * @param Closure(Connection): T $op
     * @return T
     */
    private function run(Closure $op): mixed
    {
        $this->capsule ??= Illuminate::capsule($this->config);
        try {
            return $op($this->capsule->getConnection());
        } catch (PDOException $e) {
            // Illuminate's QueryException is one.
            $this->capsule->getDatabaseManager()->disconnect();
            throw $e;
        }
    }

    public function endRequest(): void
    {
        if (!$this->config->keepsConnection()) {
            $this->capsule?->getDatabaseManager()->disconnect();
        }
    }
}
