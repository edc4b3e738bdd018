<?php

declare(strict_types=1);

namespace DbBench\Server;

use Closure;
use DbBench\Response;

/** An Application made of two closures: what an entry script's boot callable returns. */
final class ClosureApplication implements Application
{
    /**
     * @param Closure(string, string, string): Response $handler method, target and body
     *     (a closure that takes two ignores the body)
     * @param (Closure(): void)|null $end
     */
    public function __construct(
        private readonly Closure $handler,
        private readonly ?Closure $end = null,
    ) {
    }

    public function handle(string $method, string $target, string $body = ''): Response
    {
        return ($this->handler)($method, $target, $body);
    }

    public function endRequest(): void
    {
        if ($this->end !== null) {
            ($this->end)();
        }
    }
}
