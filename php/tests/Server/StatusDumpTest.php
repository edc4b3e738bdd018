<?php

declare(strict_types=1);

namespace DbBench\Tests\Server;

use DbBench\Server\StatusDump;
use PHPUnit\Framework\TestCase;

final class StatusDumpTest extends TestCase
{
    public function testFiguresAreCountAndLastAndMeanPeak(): void
    {
        $dump = new StatusDump(null);
        $dump->record(1000, 2097152);
        $dump->record(2000, 2097152);
        $dump->record(4000, 4194304);
        $f = $dump->figures();
        self::assertSame(getmypid(), $f['pid']);
        self::assertSame(3, $f['requests']);
        self::assertSame(4000, $f['last_request_peak_memory']);
        self::assertEqualsWithDelta(7000 / 3, $f['mean_request_peak_memory'], 0.1);
        self::assertSame(4194304, $f['last_request_peak_real_memory']);
        self::assertEqualsWithDelta(8388608 / 3, $f['mean_request_peak_real_memory'], 0.1);
        self::assertEqualsWithDelta(microtime(true), $f['dumped'], 60.0);
        self::assertGreaterThanOrEqual($f['started'], $f['dumped']);
        self::assertEqualsWithDelta(microtime(true), $f['started'], 60.0);
    }

    public function testWriteReplacesTheFileWhole(): void
    {
        $dir = sys_get_temp_dir() . '/dbbench-status-test-' . getmypid();
        mkdir($dir);
        try {
            $dump = new StatusDump($dir);
            $dump->write();
            $dump->record(123, 2097152);
            $dump->write();
            self::assertSame([getmypid() . '.json'], array_values(array_diff(scandir($dir), ['.', '..'])));
            $f = json_decode((string) file_get_contents($dir . '/' . getmypid() . '.json'), true);
            self::assertSame(1, $f['requests']);
            self::assertSame(123, $f['last_request_peak_memory']);
            self::assertSame(123.0, $f['mean_request_peak_memory']);
            self::assertSame(2097152, $f['last_request_peak_real_memory']);
        } finally {
            array_map('unlink', glob($dir . '/*') ?: []);
            rmdir($dir);
        }
    }
}
