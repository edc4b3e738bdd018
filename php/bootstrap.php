<?php

/**
 * Autoloading for the front controller and the tests.
 *
 * With `composer install` (php/vendor/) Composer loads everything. Without it, our own
 * classes are loaded from src/ here, and Illuminate comes from Debian's
 * php-illuminate-database, loaded only by the layers that use it (DbBench\Illuminate),
 * so the hello and raw variants do not pay for it on every request.
 */

declare(strict_types=1);

if (is_file(__DIR__ . '/vendor/autoload.php')) {
    require __DIR__ . '/vendor/autoload.php';
} else {
    spl_autoload_register(static function (string $class): void {
        $prefix = 'DbBench\\';
        if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
            return;
        }
        $file = __DIR__ . '/src/' . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
        if (is_file($file)) {
            require $file;
        }
    });
}
