<?php

declare(strict_types=1);

namespace DbBench\Server;

/** One parsed request: all the application sees of it is the method, the target and the body. */
final class Request
{
    /**
     * @param string $target the raw request-target in origin form (path and query), or "*"
     * @param string $version "1.0" or "1.1"
     * @param bool $keepAlive whether the client lets the connection carry another request
     * @param string $body the Content-Length bytes after the head ("" without them)
     */
    public function __construct(
        public readonly string $method,
        public readonly string $target,
        public readonly string $version,
        public readonly bool $keepAlive,
        public readonly string $body = '',
    ) {
    }

    /** The same request with its body, once the parser has read it. */
    public function withBody(string $body): self
    {
        return new self($this->method, $this->target, $this->version, $this->keepAlive, $body);
    }
}
