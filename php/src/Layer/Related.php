<?php

declare(strict_types=1);

namespace DbBench\Layer;

/**
 * A layer that reads users' related rows, their orders (issue 61; go/server/orders.go's
 * Related): GET /users/{id}/orders (op orders) and GET /users?…&orders= (op listorders),
 * in the forms (fetch=) its Declaration names, and only those: App refuses the others.
 *
 * - JOIN: one statement joining users and orders (for an ORM, its own join form).
 * - EAGER: the user(s), then all their orders in one more statement (WHERE user_id = ?
 *   for one user, WHERE user_id IN (…) for a page: for an ORM, its eager loading).
 * - LAZY: the user(s), then one statement per user, 1 + N (an ORM's lazy loading; for a
 *   hand-written layer, a loop).
 *
 * Every form answers the same body. "Latest" is the highest order id first; a form that
 * cannot limit per user fetches all of a user's orders and keeps the latest in PHP.
 */
interface Related
{
    public const JOIN = 'join';
    public const EAGER = 'eager';
    public const LAZY = 'lazy';

    /**
     * Op orders: user $id with their latest $limit orders, or null if there is no such user.
     *
     * @return array{id: int, name: string, orders: list<array{id: int, total: int}>}|null
     */
    public function userOrders(int $id, int $limit, string $fetch): ?array;

    /**
     * Op listorders: the $limit users with an id above $after, in id order, each with their
     * latest $per orders ([] when none).
     *
     * @return list<array{id: int, name: string, orders: list<array{id: int, total: int}>}>
     */
    public function usersWithOrders(int $after, int $limit, int $per, string $fetch): array;
}
