<?php

declare(strict_types=1);

namespace DbBench\Server;

use DbBench\Profile;

/**
 * A worker's figures for the runner, counted per request at no cost beyond a few
 * additions, and written to <dir>/<pid>.json only when asked (SIGUSR2): never per request.
 * The one place a signal-driven dump lives: a sampling profile, when the worker has one,
 * is folded after requests and written with the figures.
 */
final class StatusDump
{
    private int $requests = 0;
    private int $lastPeak = 0;
    private float $meanPeak = 0.0;
    private int $lastRealPeak = 0;
    private float $meanRealPeak = 0.0;
    private readonly float $started;

    /**
     * @param string|null $dir where dumps go; null: dumps are not wanted
     * @param Profile|null $profile the worker's profile, written with each dump (to its own directory)
     */
    public function __construct(private readonly ?string $dir, private readonly ?Profile $profile = null)
    {
        $this->started = microtime(true);
    }

    /**
     * One request served. $peakMemory is memory_get_peak_usage() after it: the most bytes
     * the process's PHP objects held at once (emalloc'ed, the resident app included).
     * $realPeakMemory is memory_get_peak_usage(true): the most memory PHP's allocator
     * held from the system meanwhile, in whole 2 MiB chunks, which is what php-fpm's
     * status page reports as a request's "last request memory".
     */
    public function record(int $peakMemory, int $realPeakMemory): void
    {
        $this->requests++;
        $this->lastPeak = $peakMemory;
        $this->meanPeak += ($peakMemory - $this->meanPeak) / $this->requests;
        $this->lastRealPeak = $realPeakMemory;
        $this->meanRealPeak += ($realPeakMemory - $this->meanRealPeak) / $this->requests;
        $this->profile?->afterRequest();
    }

    /**
     * memory: memory_get_usage() at the dump, between requests: what the resident app
     * keeps from one request to the next (a leak inside PHP grows it byte by byte, where
     * the process's RSS grows in the allocator's 2 MiB chunks).
     *
     * @return array{pid: int, requests: int, last_request_peak_memory: int,
     *     mean_request_peak_memory: float, last_request_peak_real_memory: int,
     *     mean_request_peak_real_memory: float, memory: int, started: float, dumped: float}
     */
    public function figures(): array
    {
        return [
            'pid' => getmypid(),
            'requests' => $this->requests,
            'last_request_peak_memory' => $this->lastPeak,
            'mean_request_peak_memory' => round($this->meanPeak, 1),
            'last_request_peak_real_memory' => $this->lastRealPeak,
            'mean_request_peak_real_memory' => round($this->meanRealPeak, 1),
            'memory' => memory_get_usage(),
            'started' => $this->started,
            // When this dump was made: a reader that signalled at time T waits for dumped >= T.
            'dumped' => microtime(true),
        ];
    }

    /**
     * Writes the profile, then the figures, each atomically: a reader sees the old file or
     * the new one, whole. A figures file with `dumped` after a signal means the profile
     * written with it is there too.
     */
    public function write(): void
    {
        $this->profile?->write();
        if ($this->dir === null) {
            return;
        }
        $file = sprintf('%s/%d.json', $this->dir, getmypid());
        $tmp = $file . '.tmp';
        $json = json_encode($this->figures(), JSON_THROW_ON_ERROR | JSON_PRESERVE_ZERO_FRACTION) . "\n";
        if (@file_put_contents($tmp, $json) !== strlen($json) || !@rename($tmp, $file)) {
            Log::line(sprintf('cannot write %s: %s', $file, error_get_last()['message'] ?? 'short write'));
            @unlink($tmp);
        }
    }
}
