<?php

/**
 * Front controller: nginx sends every request here (SCRIPT_FILENAME is fixed in
 * nginx.conf). The variant comes from the php-fpm pool's environment.
 */

declare(strict_types=1);

require __DIR__ . '/../bootstrap.php';

use DbBench\App;
use DbBench\Config;
use DbBench\Response;

try {
    $method = $_SERVER['REQUEST_METHOD'] ?? 'GET';
    // Only POST /users reads a body; nginx has refused one over client_max_body_size (413).
    $body = $method === 'POST' ? (string) file_get_contents('php://input') : '';
    $response = App::fromConfig(Config::fromEnvironment())
        ->handle($method, $_SERVER['REQUEST_URI'] ?? '/', $body);
} catch (Throwable $e) {
    // A bug or a misconfigured pool, never client input: details to the fpm log only.
    error_log(sprintf(
        'dbbench: %s %s: %s: %s',
        $_SERVER['REQUEST_METHOD'] ?? '?',
        $_SERVER['REQUEST_URI'] ?? '?',
        $e::class,
        $e->getMessage(),
    ));
    $response = Response::error(500, 'internal error');
}
$response->send();
