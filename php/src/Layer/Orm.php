<?php

declare(strict_types=1);

namespace DbBench\Layer;

use Closure;
use DbBench\Config;
use DbBench\Illuminate;
use DbBench\Model\User;
use Illuminate\Database\Capsule\Manager as Capsule;
use Illuminate\Database\Eloquent\Relations\HasMany;
use PDOException;

/**
 * Eloquent (src/Model/User.php): User::find($id) (get); User::where('id', '>', $after)
 * ->orderBy('id')->limit($n)->get() (list); a new User, its name set, save() (insert);
 * and in the connection's transaction() User::lockForUpdate()->find($id), visits
 * incremented, save() (update: the model writes its changed attribute only).
 *
 * Related rows (Related) through the model's hasMany orders relation, latest first
 * (src/Model/User.php). Eager is with(): the user(s), then one query with the orders of
 * them all (`where orders.user_id in (…)`, the ids written into the SQL: Eloquent's
 * whereIntegerInRaw for integer keys). For one user the eager constraint limits it;
 * Illuminate 8's limit in an eager constraint would limit the whole IN query, not each
 * user's share (per-parent limits came in Laravel 11), so a page loads all its users'
 * orders and keeps each one's latest in PHP. Lazy is the relation property,
 * `$user->orders`, read per user: a query each (1 + N for a page), loading all of the
 * user's orders (a property takes no limit). Eloquent has no join form for a hasMany:
 * not offered.
 *
 * Under php-fpm the Capsule is set up and Eloquent booted in every request. A resident
 * worker does both once: conn=persistent keeps the connection, conn=per-request
 * disconnects it after each request. Eloquent keeps no identity map: nothing else of a
 * request outlives it.
 *
 * Self-contained on purpose (Layer.php): its declaration, set-up and error handling
 * mirror Builder.php (the same Capsule).
 */
final class Orm implements Layer, Related
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
            protocols: ['mysql', 'postgres'],
            fetch: [
                'orders' => [self::EAGER, self::LAZY],
                'listorders' => [self::EAGER, self::LAZY],
            ],
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

    public function users(int $after, int $limit): array
    {
        $models = $this->run(static fn (): iterable => User::query()
            ->where('id', '>', $after)
            ->orderBy('id')
            ->limit($limit)
            ->get());
        $users = [];
        foreach ($models as $user) {
            $users[] = ['id' => $user->id, 'name' => $user->name];
        }
        return $users;
    }

    public function insert(string $name): array
    {
        // Inside run(): Illuminate (the model's parent class) loads with the Capsule.
        $user = $this->run(static function () use ($name): User {
            $user = new User();
            $user->name = $name;
            $user->save();
            return $user;
        });
        return ['id' => $user->id, 'name' => $user->name];
    }

    /**
     * The connection's transaction(): BEGIN, the closure, COMMIT (ROLLBACK if it throws).
     * An unknown id commits the empty transaction.
     */
    public function visit(int $id): ?array
    {
        return $this->run(fn (): ?array => $this->capsule->getConnection()->transaction(
            static function () use ($id): ?array {
                $user = User::query()->lockForUpdate()->find($id);
                if ($user === null) {
                    return null;
                }
                $user->visits++;
                $user->save();
                return ['id' => $user->id, 'visits' => $user->visits];
            }
        ));
    }

    public function userOrders(int $id, int $limit, string $fetch): ?array
    {
        return $this->run(static function () use ($id, $limit, $fetch): ?array {
            $user = match ($fetch) {
                self::EAGER => User::with(['orders' => static fn (HasMany $orders) => $orders->limit($limit)])
                    ->find($id),
                self::LAZY => User::find($id),
            };
            if ($user === null) {
                return null;
            }
            $orders = [];
            // Eager: loaded with the user. Lazy: the property queries here, for all the user's orders.
            foreach ($user->orders->take($limit) as $order) {
                $orders[] = ['id' => (int) $order->id, 'total' => (int) $order->total];
            }
            return ['id' => $user->id, 'name' => $user->name, 'orders' => $orders];
        });
    }

    public function usersWithOrders(int $after, int $limit, int $per, string $fetch): array
    {
        return $this->run(static function () use ($after, $limit, $per, $fetch): array {
            $query = User::query()->where('id', '>', $after)->orderBy('id')->limit($limit);
            $models = match ($fetch) {
                self::EAGER => $query->with('orders')->get(),
                self::LAZY => $query->get(),
            };
            $users = [];
            foreach ($models as $user) {
                $orders = [];
                // Eager: loaded with the page. Lazy: the property queries here, one user at a time.
                foreach ($user->orders->take($per) as $order) {
                    $orders[] = ['id' => (int) $order->id, 'total' => (int) $order->total];
                }
                $users[] = ['id' => $user->id, 'name' => $user->name, 'orders' => $orders];
            }
            return $users;
        });
    }

    /**
     * Runs $op with Eloquent booted on this layer's connection, as user() runs its read.
     * Illuminate has already
     * run a statement once more on a new connection if the error said the connection was
     * lost (tryAgainIfCausedByLostConnection; for a transaction, its begin only); when it
     * still fails, a resident worker starts afresh.
     *
     * @template T
     * @param Closure(): T $op
     * @return T
     */
    private function run(Closure $op): mixed
    {
        if ($this->capsule === null) {
            $this->capsule = Illuminate::capsule($this->config);
            $this->capsule->bootEloquent();
        }
        try {
            return $op();
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
