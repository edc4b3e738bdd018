<?php

declare(strict_types=1);

namespace DbBench\Server;

/**
 * Sizes and timeouts of the worker server. The defaults are what dbbench runs with; the
 * reason for each is in php/README.md. Tests shorten the timeouts.
 */
final class Limits
{
    /**
     * @param int $maxHeaderSection bytes of the header field lines, line ends included (431 beyond)
     * @param int $maxTarget bytes of the request target (414 beyond)
     * @param int $maxBody bytes of a request body, read and handed to the application (413 beyond)
     * @param float $requestTimeout seconds from the first byte of a request to its last
     * @param float $idleTimeout seconds a kept-alive connection may wait for its next request
     * @param float $sendTimeout seconds a client may leave a response unread
     * @param float $lingerTimeout seconds of reading what a refused client still sends
     * @param float $drainTimeout seconds a stopping worker waits for its open requests
     * @param int $maxConnections connections per worker: select() cannot watch descriptors above 1023
     */
    public function __construct(
        public readonly int $maxHeaderSection = 16384,
        public readonly int $maxTarget = 16384,
        public readonly int $maxBody = 1048576,
        public readonly float $requestTimeout = 10.0,
        public readonly float $idleTimeout = 60.0,
        public readonly float $sendTimeout = 60.0,
        public readonly float $lingerTimeout = 2.0,
        public readonly float $drainTimeout = 5.0,
        public readonly int $maxConnections = 1000,
    ) {
    }
}
