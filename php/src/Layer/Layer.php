<?php

declare(strict_types=1);

namespace DbBench\Layer;

/**
 * One way of reading a user by primary key: a point on the ORM-overhead axis.
 *
 * Layer `foo` is the class DbBench\Layer\Foo in src/Layer/Foo.php (DbBench\Layers finds
 * it by that name), constructed as `new Foo(Config $config)`. Adding a layer is adding
 * such a class: it declares what it supports, and nothing else in php/ lists layers.
 *
 * Under php-fpm a layer object serves one request. Under a resident worker
 * (DBBENCH_SERVER=worker) it serves every request of its process: conn=persistent then
 * means the layer keeps one connection object for the process's life, conn=per-request
 * that it opens one during each request and closes it in endRequest().
 */
interface Layer
{
    /** What the layer is and which variants it serves. */
    public static function declaration(): Declaration;

    /**
     * The user with this id, or null if there is none. Database failures surface as
     * PDOException (Illuminate's QueryException is one) or, from a library with its
     * own exceptions, as DbBench\DatabaseError. Never called on a layer whose
     * declaration says it has no database: App routes no /users/ to it.
     *
     * @return array{id: int, name: string}|null
     */
    public function user(int $id): ?array;

    /**
     * Called by a resident worker after every request (php-fpm never calls it: the
     * layer dies with the request). Drops whatever the request left behind (an ORM's
     * identity map, which would otherwise answer the next find() without a query, with a
     * row that may have changed) and, for conn=per-request, closes the connection.
     */
    public function endRequest(): void;
}
