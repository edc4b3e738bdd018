<?php

declare(strict_types=1);

namespace DbBench\Server;

/** One parsed request: all the application sees of it is the method and the target. */
final class Request
{
    /**
     * @param string $target the raw request-target in origin form (path and query), or "*"
     * @param string $version "1.0" or "1.1"
     * @param bool $keepAlive whether the client lets the connection carry another request
     */
    public function __construct(
        public readonly string $method,
        public readonly string $target,
        public readonly string $version,
        public readonly bool $keepAlive,
    ) {
    }
}
