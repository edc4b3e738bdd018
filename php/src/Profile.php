<?php

declare(strict_types=1);

namespace DbBench;

use ExcimerLog;
use ExcimerProfiler;
use InvalidArgumentException;
use RuntimeException;

/**
 * A sampling profile of one PHP process with Excimer (Debian's php-excimer), for the
 * runner's profiled repetition: only when the launcher asks for one
 * (DBBENCH_PROFILE_DIR), in which case php.ini loads the extension; measured runs have
 * neither. Samples are written as collapsed stacks ("a;b;c 12", Excimer's
 * formatCollapsed()) to DIR/<pid>.collapsed, whose counts only grow: a reader takes
 * differences between two reads.
 *
 * The counts are Excimer's event counts: periods of the clock (DBBENCH_PROFILE_CLOCK:
 * `real`, wall time, by default; `cpu`, the thread's CPU time) since the previous
 * sample, so count × period is time. php/README.md ("Profiles") says why wall time and
 * why the period.
 *
 * php-fpm: one profile per request (bin/profile-request.php, php.ini's
 * auto_prepend_file), appended to the file at the end of the request when it has any
 * sample. With $timed, each sample is also appended to DIR/<pid>.timed as
 * "MONOTONIC_NS stack", the time it was taken on CLOCK_MONOTONIC (hrtime's clock): the
 * runner joins these with perf's CPU samples of the same process, so that php-fpm's
 * wall-clock stacks yield a CPU profile (runners/measure/profile/join.go). A resident worker: one profile for the process's life, folded into counts in
 * memory every FOLD_SAMPLES samples and written whole on SIGUSR2 and at exit
 * (Server\StatusDump).
 */
final class Profile
{
    public const DEFAULT_PERIOD = 0.0005;

    /** Samples kept in Excimer's log before they are folded into counts (bounds its memory). */
    private const FOLD_SAMPLES = 1000;

    private readonly ExcimerProfiler $profiler;

    /** @var array<string, int> collapsed stack => events, folded from the log */
    private array $stacks = [];

    /** hrtime(true) when the profiler was made: Excimer's timestamps count from then. */
    private readonly int $origin;

    /** Timed lines of the current request, appended to the .timed file by append(). */
    private string $timedLines = '';

    /**
     * @param string $idle a frame that waits for work (a worker's select()): a stack that
     *     ends in it is left out of a wall-clock profile, as it is of a CPU one
     */
    public function __construct(
        private readonly string $file,
        float $period,
        private readonly int $clock,
        private readonly string $idle = '',
        private readonly bool $timed = false,
    ) {
        $this->profiler = new ExcimerProfiler();
        $this->origin = hrtime(true);
        $this->profiler->setPeriod($period);
        $this->profiler->setEventType($clock);
    }

    /**
     * The profile the environment asks for: null when DBBENCH_PROFILE_DIR is not set.
     *
     * @throws RuntimeException when it is set but the extension is not loaded
     * @throws InvalidArgumentException for a bad period or clock
     */
    public static function fromEnvironment(string $idle = '', bool $timed = false): ?self
    {
        $dir = getenv('DBBENCH_PROFILE_DIR');
        if ($dir === false || $dir === '') {
            return null;
        }
        if (!extension_loaded('excimer')) {
            throw new RuntimeException(
                'DBBENCH_PROFILE_DIR is set but the excimer extension is not loaded (Debian\'s php-excimer)'
            );
        }
        $period = getenv('DBBENCH_PROFILE_PERIOD');
        $period = $period === false || $period === '' ? self::DEFAULT_PERIOD : $period;
        if (!is_numeric($period) || (float) $period < 1e-5 || (float) $period > 1.0) {
            throw new InvalidArgumentException(sprintf(
                'DBBENCH_PROFILE_PERIOD is "%s", want seconds from 0.00001 to 1',
                $period,
            ));
        }
        $clock = match (getenv('DBBENCH_PROFILE_CLOCK') ?: 'real') {
            'cpu' => EXCIMER_CPU,
            'real' => EXCIMER_REAL,
            default => throw new InvalidArgumentException('DBBENCH_PROFILE_CLOCK must be cpu or real'),
        };
        return new self(sprintf('%s/%d.collapsed', rtrim($dir, '/'), getmypid()), (float) $period, $clock, $idle, $timed);
    }

    public function start(): void
    {
        $this->profiler->start();
    }

    public function stop(): void
    {
        $this->profiler->stop();
    }

    /** A resident worker, after each request: folds the log once it is long. */
    public function afterRequest(): void
    {
        if (count($this->profiler->getLog()) >= self::FOLD_SAMPLES) {
            $this->fold();
        }
    }

    /**
     * php-fpm, at the end of a request: appends the request's stacks to the file, if it
     * has any (one write; most short requests have none).
     */
    public function append(): void
    {
        $this->fold();
        if ($this->stacks !== []) {
            $this->put(self::format($this->stacks), FILE_APPEND);
            $this->stacks = [];
        }
        if ($this->timedLines !== '') {
            $this->put($this->timedLines, FILE_APPEND, self::timedFile($this->file));
            $this->timedLines = '';
        }
    }

    /** The .timed file beside a .collapsed one. */
    public static function timedFile(string $collapsed): string
    {
        return preg_replace('/\.collapsed\z/', '', $collapsed) . '.timed';
    }

    /** A resident worker: replaces the file with every stack since the start. */
    public function write(): void
    {
        $this->fold();
        // Renamed into place: a reader sees the old file or the new one, whole.
        $tmp = $this->file . '.tmp';
        $this->put(self::format($this->stacks), 0, $tmp);
        if (!@rename($tmp, $this->file)) {
            error_log(sprintf('dbbench: cannot write %s: %s', $this->file, error_get_last()['message'] ?? '?'));
        }
    }

    /** @return array<string, int> collapsed stack => events, every sample so far (for tests) */
    public function stacks(): array
    {
        $this->fold();
        return $this->stacks;
    }

    /** Moves the log's samples into the counts and starts a new log. */
    private function fold(): void
    {
        $log = $this->profiler->flush();
        if ($this->timed) {
            $this->timedLines .= $this->timedOf($log);
        }
        $this->stacks = $this->add($this->stacks, $log);
    }

    /**
     * The log's samples, one line each: the time on CLOCK_MONOTONIC in nanoseconds and
     * the stack, root first, each frame named as formatCollapsed() names it.
     */
    private function timedOf(ExcimerLog $log): string
    {
        $out = '';
        foreach ($log as $entry) {
            $frames = array_map(self::frameName(...), array_reverse($entry->getTrace()));
            $stack = ltrim(implode(';', $frames), ';');
            $out .= sprintf("%d %s\n", $this->origin + (int) round($entry->getTimestamp() * 1e9), $stack);
        }
        return $out;
    }

    /**
     * A frame's name as Excimer 1.0.4's formatCollapsed() writes it (excimer_log.c,
     * excimer_log_append_frame_name): a closure by its file and line, file-scope code by
     * its file, else Class::function; spaces become underscores.
     *
     * @param array{file?: string, class?: string, function?: string, closure_line?: int} $frame
     */
    private static function frameName(array $frame): string
    {
        $file = strtr($frame['file'] ?? '', ' ', '_');
        if (($frame['closure_line'] ?? 0) !== 0) {
            return sprintf('{closure:%s(%d)}', $file, $frame['closure_line']);
        }
        if (!isset($frame['function'])) {
            return $file;
        }
        $class = isset($frame['class']) ? strtr($frame['class'], ' ', '_') . '::' : '';
        return $class . strtr($frame['function'], ' ', '_');
    }

    /**
     * The log's stacks added to $stacks. Excimer 1.0.4 starts some of a worker's stacks
     * with an empty frame (";/…/worker.php;…"): it is dropped, so that one stack has
     * one spelling. Waiting for work is dropped from a wall-clock profile.
     *
     * @param array<string, int> $stacks
     * @return array<string, int>
     */
    private function add(array $stacks, ExcimerLog $log): array
    {
        foreach (explode("\n", rtrim($log->formatCollapsed(), "\n")) as $line) {
            $space = strrpos($line, ' ');
            if ($space === false) {
                continue; // an empty log
            }
            $stack = ltrim(substr($line, 0, $space), ';');
            if ($this->clock === EXCIMER_REAL && $this->idle !== '' && str_ends_with($stack, ';' . $this->idle)) {
                continue;
            }
            $stacks[$stack] = ($stacks[$stack] ?? 0) + (int) substr($line, $space + 1);
        }
        return $stacks;
    }

    /** @param array<string, int> $stacks */
    private static function format(array $stacks): string
    {
        $out = '';
        foreach ($stacks as $stack => $count) {
            $out .= $stack . ' ' . $count . "\n";
        }
        return $out;
    }

    private function put(string $data, int $flags, ?string $file = null): void
    {
        $file ??= $this->file;
        if (@file_put_contents($file, $data, $flags) !== strlen($data)) {
            error_log(sprintf('dbbench: cannot write %s: %s', $file, error_get_last()['message'] ?? 'short write'));
        }
    }
}
