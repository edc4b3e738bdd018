<?php

declare(strict_types=1);

namespace DbBench\Server;

use Closure;

/**
 * The command line of an entry script (php/bin/worker.php, the tests' fixture):
 * `--listen HOST:PORT --workers N [--status-dir DIR]`. Bad flags: a message on stderr and
 * exit status 2; otherwise the master runs until it is stopped.
 */
final class Cli
{
    public const USAGE = 'usage: php [-c PHP.INI] SCRIPT --listen 127.0.0.1:PORT --workers N [--status-dir DIR]';

    private const MAX_WORKERS = 256;

    /**
     * @param list<string> $argv as the script got it
     * @param Closure(): Application $boot
     * @return int the exit status
     */
    public static function run(array $argv, Closure $boot, ?Limits $limits = null): int
    {
        foreach (['pcntl', 'posix'] as $extension) {
            if (!extension_loaded($extension)) {
                fwrite(STDERR, sprintf("%s: the PHP extension %s is not loaded\n", $argv[0] ?? 'worker', $extension));
                return 2;
            }
        }
        $options = self::parse(array_slice($argv, 1));
        if (is_string($options)) {
            fwrite(STDERR, sprintf("%s: %s\n%s\n", $argv[0] ?? 'worker', $options, self::USAGE));
            return 2;
        }
        [$listen, $workers, $statusDir] = $options;
        $master = new Master($listen, $workers, $boot, $limits ?? new Limits(), $statusDir);
        return $master->run();
    }

    /**
     * @param list<string> $args
     * @return array{string, int, ?string}|string the options, or what is wrong with them
     */
    public static function parse(array $args): array|string
    {
        $values = [];
        while ($args !== []) {
            $arg = array_shift($args);
            [$name, $value] = str_contains($arg, '=') ? explode('=', $arg, 2) : [$arg, null];
            if (!in_array($name, ['--listen', '--workers', '--status-dir'], true)) {
                return sprintf('unknown argument "%s"', $arg);
            }
            if (isset($values[$name])) {
                return sprintf('%s given twice', $name);
            }
            if ($value === null) {
                if ($args === []) {
                    return sprintf('%s needs a value', $name);
                }
                $value = array_shift($args);
            }
            $values[$name] = $value;
        }
        $listen = self::listen($values['--listen'] ?? null);
        if ($listen !== null) {
            return $listen;
        }
        $workers = $values['--workers'] ?? '';
        if (!ctype_digit($workers) || (int) $workers < 1 || (int) $workers > self::MAX_WORKERS) {
            return sprintf('--workers is "%s", want a number of processes from 1 to %d', $workers, self::MAX_WORKERS);
        }
        $dir = $values['--status-dir'] ?? null;
        if ($dir !== null && (!is_dir($dir) || !is_writable($dir))) {
            return sprintf('--status-dir "%s" is not a writable directory', $dir);
        }
        return [$values['--listen'], (int) $workers, $dir === null ? null : rtrim($dir, '/')];
    }

    /** What is wrong with the --listen value, or null: an IP address and a port. */
    private static function listen(?string $listen): ?string
    {
        if ($listen === null) {
            return '--listen is missing';
        }
        $colon = strrpos($listen, ':');
        $host = $colon === false ? '' : substr($listen, 0, $colon);
        $port = $colon === false ? '' : substr($listen, $colon + 1);
        if (str_starts_with($host, '[') && str_ends_with($host, ']')) {
            $host = substr($host, 1, -1);
            $ok = filter_var($host, FILTER_VALIDATE_IP, FILTER_FLAG_IPV6) !== false;
        } else {
            $ok = filter_var($host, FILTER_VALIDATE_IP, FILTER_FLAG_IPV4) !== false;
        }
        if (!$ok || !ctype_digit($port) || (int) $port < 1 || (int) $port > 65535) {
            return sprintf('--listen is "%s", want IP:PORT such as 127.0.0.1:8080', $listen);
        }
        return null;
    }
}
