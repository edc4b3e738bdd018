<?php

declare(strict_types=1);

namespace DbBench\Layer;

/**
 * One way of working with the users table: a point on the ORM-overhead axis. Each op is
 * written the way its library is meant to be used.
 *
 * Layer `foo` is the class DbBench\Layer\Foo in src/Layer/Foo.php (DbBench\Layers finds
 * it by that name), constructed as `new Foo(Config $config)`. Adding a layer is adding
 * such a class: it declares what it supports, and nothing else in php/ lists layers.
 *
 * Under php-fpm a layer object serves one request. Under a resident worker
 * (DBBENCH_SERVER=worker) it serves every request of its process: conn=persistent then
 * means the layer keeps one connection object for the process's life, conn=per-request
 * that it opens one during each request and closes it in endRequest().
 *
 * Each layer class is self-contained on purpose, like TechEmpower's per-framework
 * folders: it is its library's idiomatic code, read whole on one page, and no helper is
 * shared between layers, so a profile shows the library's own frames. The declaration,
 * constructor and error handling therefore look alike from class to class; each class
 * says which one it mirrors.
 *
 * Database failures surface as PDOException (Illuminate's QueryException is one) or,
 * from a library with its own exceptions, as DbBench\DatabaseError. App routes no users
 * endpoint to a layer whose declaration says it has no database.
 */
interface Layer
{
    /** What the layer is and which variants it serves. */
    public static function declaration(): Declaration;

    /**
     * Op get: the user with this id, or null if there is none.
     *
     * @return array{id: int, name: string}|null
     */
    public function user(int $id): ?array;

    /**
     * Op list: the $limit users with an id above $after, in id order ([] when none).
     *
     * @return list<array{id: int, name: string}>
     */
    public function users(int $after, int $limit): array;

    /**
     * Op insert: a new user with this name (1..64 characters of valid UTF-8), the id the
     * database gave it.
     *
     * @return array{id: int, name: string}
     */
    public function insert(string $name): array;

    /**
     * Op update: in one transaction, the row read with a lock (SELECT … FOR UPDATE or the
     * library's locking read), its visits incremented in PHP, written back, committed.
     * Concurrent visits of one user must all count. Null when there is no such user.
     *
     * @return array{id: int, visits: int}|null
     */
    public function visit(int $id): ?array;

    /**
     * Called by a resident worker after every request (php-fpm never calls it: the
     * layer dies with the request). Drops whatever the request left behind (an ORM's
     * identity map, which would otherwise answer the next find() without a query, with a
     * row that may have changed) and, for conn=per-request, closes the connection.
     */
    public function endRequest(): void;
}
