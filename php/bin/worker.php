<?php

/**
 * The resident-worker PHP target (server=worker): a master and N pre-forked workers that
 * each build the dbbench app once and keep it, and its connection, for every request.
 *
 *     php -c PHP.INI php/bin/worker.php --listen 127.0.0.1:PORT --workers N [--status-dir DIR]
 *
 * The variant comes from the environment (DBBENCH_LAYER, …), as under php-fpm.
 * How the server works: php/README.md.
 */

declare(strict_types=1);

require __DIR__ . '/../bootstrap.php';

use DbBench\App;
use DbBench\Config;
use DbBench\Response;
use DbBench\Server\Application;
use DbBench\Server\Cli;
use DbBench\Server\ClosureApplication;

exit(Cli::run($argv, static function (): Application {
    // The glue to the app, run once in each worker: build it, hand over its handler and
    // the hook that clears per-request state (when the app has one).
    $app = App::fromConfig(Config::fromEnvironment());
    // Arrow functions, not first-class callables ($app->handle(...)): a profile names a
    // first-class callable after its file and line, not DbBench\App::handle.
    return new ClosureApplication(
        static fn (string $method, string $target, string $body): Response => $app->handle($method, $target, $body),
        static fn () => $app->endRequest(),
    );
}));
