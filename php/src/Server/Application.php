<?php

declare(strict_types=1);

namespace DbBench\Server;

use DbBench\Response;

/**
 * What a worker's boot callable builds, once per worker process: the request handler and
 * the hook that runs after every request.
 */
interface Application
{
    /**
     * @param string $target the raw request-target, e.g. "/users/42?x=1"
     * @param string $body the request body (Content-Length bytes; "" without one)
     */
    public function handle(string $method, string $target, string $body = ''): Response;

    /**
     * Called after every request, also when handle() threw: the application forgets the
     * request's state here (an ORM's identity map, a per-request connection).
     */
    public function endRequest(): void;
}
