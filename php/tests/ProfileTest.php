<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\App;
use DbBench\Config;
use DbBench\Profile;
use DbBench\Server\StatusDump;
use InvalidArgumentException;
use PHPUnit\Framework\TestCase;
use Throwable;

/**
 * Excimer profiles of the app, as the runner's profiled repetition takes them: the
 * collapsed stacks name dbbench's frames. Needs Debian's php-excimer (loaded by the
 * CLI's own configuration here; the launchers load it only when profiling).
 */
final class ProfileTest extends TestCase
{
    private const HANG_GUARD = 120;

    private string $dir;

    protected function setUp(): void
    {
        if (!extension_loaded('excimer')) {
            self::markTestSkipped('the excimer extension is not loaded: apt-get install php-excimer');
        }
        $this->dir = sys_get_temp_dir() . '/dbbench-profile-test-' . getmypid();
        mkdir($this->dir);
    }

    protected function tearDown(): void
    {
        if (isset($this->dir)) {
            array_map('unlink', glob($this->dir . '/*') ?: []);
            rmdir($this->dir);
        }
    }

    /**
     * Requests of layer hello until $enough holds for the profile's stacks. Tests wait
     * for what they need rather than for a count of samples by a deadline: Excimer's
     * samples are periods of the clock, and how many log entries they make depends on how
     * often a busy machine deschedules the process. HANG_GUARD only stops a broken
     * profiler from hanging the suite; no test relies on it passing.
     *
     * @param callable(array<string, int>): bool $enough
     */
    private static function serveUntil(Profile $profile, callable $enough): void
    {
        $app = App::fromConfig(new Config('hello'));
        $deadline = microtime(true) + self::HANG_GUARD;
        do {
            for ($i = 0; $i < 1000; $i++) {
                $app->handle('GET', '/hello');
                $app->handle('GET', '/users/x');
                $app->endRequest();
            }
            if (microtime(true) > $deadline) {
                self::fail(sprintf('the profile did not get what the test waits for in %d s', self::HANG_GUARD));
            }
        } while (!$enough($profile->stacks()));
    }

    /** Requests until the profile counts at least $events clock periods. */
    private static function serve(Profile $profile, int $events): void
    {
        self::serveUntil($profile, static fn (array $s): bool => array_sum($s) >= $events);
    }

    /**
     * Runs $work in a forked child and returns what it returned. Debian's Excimer 1.0.4
     * delivers timer events on threads that glibc may start after the profiler stopped;
     * one that runs after the extension's shutdown aborts the process or jumps into its
     * unloaded code (seen here: 1 exit in 50 by SIGSEGV or SIGABRT when this file runs
     * alone on a loaded machine). The child leaves by SIGKILL once it has reported, so no
     * process that ran a profiler ever shuts the extension down.
     */
    private static function inChild(callable $work): mixed
    {
        $report = tempnam(sys_get_temp_dir(), 'dbbench-profile-child-');
        $pid = pcntl_fork();
        if ($pid === -1) {
            self::fail('pcntl_fork failed');
        }
        if ($pid === 0) {
            try {
                $result = ['ok', $work()];
            } catch (Throwable $e) {
                $result = ['error', $e::class . ': ' . $e->getMessage()];
            }
            file_put_contents($report, serialize($result));
            posix_kill(posix_getpid(), SIGKILL);
        }
        pcntl_waitpid($pid, $status);
        $raw = (string) file_get_contents($report);
        unlink($report);
        self::assertTrue(
            pcntl_wifsignaled($status) && pcntl_wtermsig($status) === SIGKILL,
            'the child ran to its end (status ' . $status . ')',
        );
        [$kind, $value] = unserialize($raw);
        if ($kind !== 'ok') {
            self::fail("in the child: $value");
        }
        return $value;
    }

    /** @return array<string, int> the file's stacks; every line must be "frames count" */
    private static function read(string $file): array
    {
        $stacks = [];
        foreach (file($file, FILE_IGNORE_NEW_LINES) ?: [] as $line) {
            self::assertMatchesRegularExpression('/\A\S+ [1-9]\d*\z/', $line);
            [$stack, $count] = explode(' ', $line);
            $stacks[$stack] = ($stacks[$stack] ?? 0) + (int) $count;
        }
        return $stacks;
    }

    /** @param array<string, int> $stacks */
    private static function names(string $frame, array $stacks): bool
    {
        return array_filter(array_keys($stacks), static fn (string $s): bool => str_contains($s, $frame)) !== [];
    }

    /** @param array<string, int> $stacks */
    private static function assertNames(string $frame, array $stacks): void
    {
        self::assertTrue(self::names($frame, $stacks), "no stack names $frame: " . implode("\n", array_keys($stacks)));
    }

    public function testAWorkersProfileNamesTheAppsFramesAndIsWrittenWhole(): void
    {
        $file = $this->dir . '/1.collapsed';
        $inMemory = self::inChild(static function () use ($file): array {
            $profile = new Profile($file, 0.0005, EXCIMER_REAL);
            $profile->start();
            self::serveUntil($profile, static fn (array $s): bool => array_sum($s) >= 200
                && self::names('DbBench\\App::handle', $s) && self::names('DbBench\\Response::', $s));
            $profile->stop();
            $profile->write();
            return $profile->stacks();
        });
        $stacks = self::read($file);
        self::assertNames('DbBench\App::handle', $stacks);
        self::assertNames('DbBench\Response::', $stacks);
        self::assertSame($inMemory, $stacks, 'the file holds every sample, once');
        // No stack starts with an empty frame.
        self::assertSame([], array_filter(array_keys($stacks), static fn (string $s): bool => $s[0] === ';'));
        self::assertSame([$file], glob($this->dir . '/*'), 'no temporary file left');
    }

    public function testARequestsStacksAreAppended(): void
    {
        $file = $this->dir . '/2.collapsed';
        self::inChild(static function () use ($file): void {
            foreach ([1, 2] as $request) {
                $profile = new Profile($file, 0.0005, EXCIMER_REAL);
                $profile->start();
                self::serve($profile, 20);
                $profile->stop();
                $profile->append(); // as php-fpm does at the end of each request
            }
        });
        $stacks = self::read($file);
        self::assertNames('DbBench\App::handle', $stacks);
        self::assertGreaterThanOrEqual(40, array_sum($stacks), 'both requests\' samples');
    }

    /**
     * php-fpm's timed samples: one line per sample, its CLOCK_MONOTONIC time inside the
     * request, its stack spelled as the collapsed file spells it. A sample may count
     * several periods (the process was descheduled), so the invariant is per stack: as
     * many timed lines as samples, never more lines than counted periods, and the same
     * stacks in both files.
     */
    public function testARequestsTimedSamplesAreAppended(): void
    {
        $file = $this->dir . '/4.collapsed';
        $start = hrtime(true);
        self::inChild(static function () use ($file): void {
            $profile = new Profile($file, 0.0005, EXCIMER_REAL, '', true);
            $profile->start();
            self::serve($profile, 20);
            $profile->stop();
            $profile->append();
        });
        $end = hrtime(true);
        $collapsed = self::read($file);
        $lines = file(Profile::timedFile($file), FILE_IGNORE_NEW_LINES) ?: [];
        self::assertNotEmpty($lines, 'a request with samples has timed lines');
        $timed = [];
        $last = 0;
        foreach ($lines as $line) {
            self::assertMatchesRegularExpression('/\A\d+ \S+\z/', $line);
            [$at, $stack] = explode(' ', $line);
            self::assertGreaterThanOrEqual($start, (int) $at);
            self::assertLessThanOrEqual($end, (int) $at);
            self::assertGreaterThanOrEqual($last, (int) $at, 'in the order they were taken');
            $last = (int) $at;
            $timed[$stack] = ($timed[$stack] ?? 0) + 1;
        }
        ksort($timed);
        ksort($collapsed);
        self::assertSame(array_keys($collapsed), array_keys($timed), 'a timed stack is spelled as a collapsed one, and none is missing');
        foreach ($timed as $stack => $n) {
            self::assertLessThanOrEqual($collapsed[$stack], $n, "$stack: more samples than periods counted");
        }
    }

    public function testTheCpuClockCountsCpuTimeOnly(): void
    {
        // A 50-ms CPU period: starting, sleeping and stopping use microseconds of CPU, so
        // no busy machine can make them reach one period.
        $stacks = self::inChild(function (): array {
            $profile = new Profile($this->dir . '/3.collapsed', 0.05, EXCIMER_CPU);
            $profile->start();
            usleep(300_000); // no CPU: no sample
            $profile->stop();
            return $profile->stacks();
        });
        self::assertSame([], $stacks);
    }

    public function testAStatusDumpWritesTheProfileToo(): void
    {
        $pid = self::inChild(function (): int {
            $profile = new Profile($this->dir . '/' . getmypid() . '.collapsed', 0.0005, EXCIMER_REAL);
            $profile->start();
            self::serveUntil($profile, static fn (array $s): bool => self::names('DbBench\\App::handle', $s));
            $dump = new StatusDump($this->dir, $profile);
            $dump->write();
            $profile->stop();
            return getmypid();
        });
        self::assertFileExists(sprintf('%s/%d.json', $this->dir, $pid));
        self::assertNames('DbBench\App::handle', self::read(sprintf('%s/%d.collapsed', $this->dir, $pid)));
    }

    public function testFromEnvironment(): void
    {
        $vars = ['DBBENCH_PROFILE_DIR', 'DBBENCH_PROFILE_PERIOD', 'DBBENCH_PROFILE_CLOCK'];
        $old = array_map(getenv(...), $vars);
        try {
            putenv('DBBENCH_PROFILE_DIR');
            self::assertNull(Profile::fromEnvironment(), 'not profiling');
            putenv('DBBENCH_PROFILE_DIR=' . $this->dir);
            self::assertInstanceOf(Profile::class, Profile::fromEnvironment());
            foreach (['DBBENCH_PROFILE_PERIOD=0', 'DBBENCH_PROFILE_PERIOD=x', 'DBBENCH_PROFILE_CLOCK=wall'] as $bad) {
                putenv($bad);
                try {
                    Profile::fromEnvironment();
                    self::fail("$bad accepted");
                } catch (InvalidArgumentException $e) {
                    self::assertStringContainsString(explode('=', $bad)[0], $e->getMessage());
                }
                putenv(explode('=', $bad)[0]);
            }
        } finally {
            foreach ($vars as $i => $name) {
                putenv($old[$i] === false ? $name : "$name={$old[$i]}");
            }
        }
    }
}
