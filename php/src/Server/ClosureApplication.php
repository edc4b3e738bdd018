<?php

declare(strict_types=1);

namespace DbBench\Server;

use Closure;
use DbBench\Response;

/** An Application made of two closures: what an entry script's boot callable returns. */
final class ClosureApplication implements Application
{
    /**
     * @param Closure(string, string): Response $handler
     * @param (Closure(): void)|null $end
     */
    public function __construct(
        private readonly Closure $handler,
        private readonly ?Closure $end = null,
    ) {
    }

    public function handle(string $method, string $target): Response
    {
        return ($this->handler)($method, $target);
    }

    public function endRequest(): void
    {
        if ($this->end !== null) {
            ($this->end)();
        }
    }
}
