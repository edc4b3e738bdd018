<?php

declare(strict_types=1);

namespace DbBench\Layer;

/** One way of reading a user by primary key: a point on the ORM-overhead axis. */
interface Layer
{
    /**
     * The user with this id, or null if there is none. Database failures surface as
     * PDOException (Illuminate's QueryException is one).
     *
     * @return array{id: int, name: string}|null
     */
    public function user(int $id): ?array;
}
