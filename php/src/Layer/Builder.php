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
 * Related rows (Related), written with the builder as raw writes them by hand: join, a
 * leftJoin('orders as o', …) of one user, or of a page in a derived table (fromSub),
 * each user's latest kept in PHP; eager, the user(s) and then their orders in one more
 * query (a page's with whereIn); lazy, for a page only, a loop: a query per user
 * (1 + N), each built and run anew, as a loop over the builder is written. For one user
 * lazy would be eager's two queries again, so it is not offered.
 *
 * Under php-fpm the Capsule (and its PDO object, and Laravel's connect-time statements)
 * is new in every request. A resident worker builds it once: conn=persistent keeps its
 * connection, conn=per-request disconnects it after each request, and Laravel connects
 * again (with its statements) on the next query.
 *
 * Self-contained on purpose (Layer.php): its declaration, set-up and error handling
 * mirror Orm.php (the same Capsule).
 */
final class Builder implements Layer, Related
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
            fetch: [
                'orders' => [self::JOIN, self::EAGER],
                'listorders' => [self::JOIN, self::EAGER, self::LAZY],
            ],
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

    public function userOrders(int $id, int $limit, string $fetch): ?array
    {
        return $this->run(static fn (Connection $db): ?array => match ($fetch) {
            self::JOIN => self::joined($db->table('users as u')
                ->leftJoin('orders as o', 'o.user_id', '=', 'u.id')
                ->where('u.id', $id)
                ->orderByDesc('o.id')
                ->limit($limit)
                ->get(['u.id', 'u.name', 'o.id as order_id', 'o.total']), $limit)[0] ?? null,
            self::EAGER => self::eagerOne($db, $id, $limit),
        });
    }

    public function usersWithOrders(int $after, int $limit, int $per, string $fetch): array
    {
        return $this->run(static fn (Connection $db): array => match ($fetch) {
            self::JOIN => self::joined($db->query()
                ->fromSub(
                    $db->table('users')->select(['id', 'name'])->where('id', '>', $after)->orderBy('id')->limit($limit),
                    'u',
                )
                ->leftJoin('orders as o', 'o.user_id', '=', 'u.id')
                ->orderBy('u.id')
                ->orderByDesc('o.id')
                ->get(['u.id', 'u.name', 'o.id as order_id', 'o.total']), $per),
            self::EAGER => self::eagerList($db, $after, $limit, $per),
            self::LAZY => self::lazyList($db, $after, $limit, $per),
        });
    }

    /** @return array{id: int, name: string, orders: list<array{id: int, total: int}>}|null */
    private static function eagerOne(Connection $db, int $id, int $limit): ?array
    {
        $row = $db->table('users')->where('id', $id)->first();
        if ($row === null) {
            return null;
        }
        $orders = [];
        $rows = $db->table('orders')->where('user_id', $id)->orderByDesc('id')->limit($limit)->get(['id', 'total']);
        foreach ($rows as $order) {
            $orders[] = ['id' => (int) $order->id, 'total' => (int) $order->total];
        }
        return ['id' => (int) $row->id, 'name' => (string) $row->name, 'orders' => $orders];
    }

    /**
     * The page, then all its users' orders in one query, each user's latest $per kept.
     *
     * @return list<array{id: int, name: string, orders: list<array{id: int, total: int}>}>
     */
    private static function eagerList(Connection $db, int $after, int $limit, int $per): array
    {
        $users = [];
        foreach ($db->table('users')->where('id', '>', $after)->orderBy('id')->limit($limit)->get() as $row) {
            $users[(int) $row->id] = ['id' => (int) $row->id, 'name' => (string) $row->name, 'orders' => []];
        }
        if ($users === []) {
            return [];
        }
        $rows = $db->table('orders')
            ->whereIn('user_id', array_keys($users))
            ->orderBy('user_id')
            ->orderByDesc('id')
            ->get(['user_id', 'id', 'total']);
        foreach ($rows as $order) {
            if (count($users[(int) $order->user_id]['orders']) < $per) {
                $users[(int) $order->user_id]['orders'][] = ['id' => (int) $order->id, 'total' => (int) $order->total];
            }
        }
        return array_values($users);
    }

    /**
     * The page, then a query per user (1 + N).
     *
     * @return list<array{id: int, name: string, orders: list<array{id: int, total: int}>}>
     */
    private static function lazyList(Connection $db, int $after, int $limit, int $per): array
    {
        $out = [];
        foreach ($db->table('users')->where('id', '>', $after)->orderBy('id')->limit($limit)->get() as $row) {
            $orders = [];
            $rows = $db->table('orders')
                ->where('user_id', $row->id)
                ->orderByDesc('id')
                ->limit($per)
                ->get(['id', 'total']);
            foreach ($rows as $order) {
                $orders[] = ['id' => (int) $order->id, 'total' => (int) $order->total];
            }
            $out[] = ['id' => (int) $row->id, 'name' => (string) $row->name, 'orders' => $orders];
        }
        return $out;
    }

    /**
     * A join's rows (id, name, order_id, total) as users in order, each with their first
     * $per orders; a NULL order_id: a user without orders.
     *
     * @param iterable<object> $rows
     * @return list<array{id: int, name: string, orders: list<array{id: int, total: int}>}>
     */
    private static function joined(iterable $rows, int $per): array
    {
        $users = [];
        $i = -1;
        foreach ($rows as $row) {
            if ($i < 0 || $users[$i]['id'] !== (int) $row->id) {
                $users[++$i] = ['id' => (int) $row->id, 'name' => (string) $row->name, 'orders' => []];
            }
            if ($row->order_id !== null && count($users[$i]['orders']) < $per) {
                $users[$i]['orders'][] = ['id' => (int) $row->order_id, 'total' => (int) $row->total];
            }
        }
        return $users;
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
