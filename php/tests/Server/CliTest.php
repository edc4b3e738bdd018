<?php

declare(strict_types=1);

namespace DbBench\Tests\Server;

use DbBench\Server\Cli;
use PHPUnit\Framework\TestCase;

final class CliTest extends TestCase
{
    public function testFlagsInBothSpellings(): void
    {
        self::assertSame(['127.0.0.1:8080', 4, null], Cli::parse(['--listen', '127.0.0.1:8080', '--workers', '4']));
        self::assertSame(
            ['[::1]:80', 1, sys_get_temp_dir()],
            Cli::parse(['--workers=1', '--listen=[::1]:80', '--status-dir', sys_get_temp_dir() . '/']),
        );
    }

    public function testBadFlagsSayWhat(): void
    {
        $cases = [
            '--listen is missing' => ['--workers', '2'],
            '--workers is ""' => ['--listen', '127.0.0.1:1'],
            '--workers is "0"' => ['--listen', '127.0.0.1:1', '--workers', '0'],
            '--workers is "257"' => ['--listen', '127.0.0.1:1', '--workers', '257'],
            '--workers is "2x"' => ['--listen', '127.0.0.1:1', '--workers', '2x'],
            '--listen is "localhost:80"' => ['--listen', 'localhost:80', '--workers', '1'],
            '--listen is "127.0.0.1"' => ['--listen', '127.0.0.1', '--workers', '1'],
            '--listen is "127.0.0.1:0"' => ['--listen', '127.0.0.1:0', '--workers', '1'],
            '--listen is "127.0.0.1:65536"' => ['--listen', '127.0.0.1:65536', '--workers', '1'],
            '--listen is "::1:80"' => ['--listen', '::1:80', '--workers', '1'],
            'unknown argument "--bogus"' => ['--bogus'],
            'unknown argument "8080"' => ['8080'],
            '--listen given twice' => ['--listen', '127.0.0.1:1', '--listen=127.0.0.1:2'],
            '--workers needs a value' => ['--listen', '127.0.0.1:1', '--workers'],
            'is not a writable directory' =>
                ['--listen', '127.0.0.1:1', '--workers', '1', '--status-dir', '/nonexistent'],
        ];
        foreach ($cases as $want => $args) {
            $got = Cli::parse($args);
            self::assertIsString($got, implode(' ', $args));
            self::assertStringContainsString($want, $got);
        }
    }
}
