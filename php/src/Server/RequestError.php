<?php

declare(strict_types=1);

namespace DbBench\Server;

use DbBench\Response;

/**
 * Why a request was refused before it reached the application. The connection is closed
 * after the answer: once framing is in doubt, the next request cannot be found safely.
 */
final class RequestError
{
    public function __construct(
        public readonly int $status,
        public readonly string $message,
    ) {
    }

    public function response(): Response
    {
        return Response::error($this->status, $this->message);
    }
}
