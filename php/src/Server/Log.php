<?php

declare(strict_types=1);

namespace DbBench\Server;

/**
 * The server's own messages: one line each on stderr, prefixed with the process, so the
 * lines of a master and its workers can share one log. Short lines from several processes
 * do not interleave (a pipe, or a file opened for appending).
 */
final class Log
{
    public static function line(string $message): void
    {
        fwrite(STDERR, sprintf("dbbench-worker[%d]: %s\n", getmypid(), $message));
    }
}
