<?php

declare(strict_types=1);

namespace DbBench;

use RuntimeException;

/**
 * Makes a library's classes loadable on first use: Composer's vendor/ when installed,
 * else the Debian package's autoload file under /usr/share/php (php.ini's include_path).
 * Only the layers that need a library load it, so hello and raw never pay for one.
 */
final class Library
{
    /**
     * @param string $class a class of the library: if it loads, nothing is done
     * @param string $autoload the Debian package's autoload file, relative to include_path
     * @param string $package the Debian package, for the error message
     */
    public static function load(string $class, string $autoload, string $package): void
    {
        if (class_exists($class)) {
            return;
        }
        if (stream_resolve_include_path($autoload) === false) {
            throw new RuntimeException(sprintf(
                '%s not found: run `composer install` in php/ or install Debian\'s %s',
                $class,
                $package,
            ));
        }
        require_once $autoload;
    }
}
