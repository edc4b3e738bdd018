<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\App;
use DbBench\Config;
use DbBench\Profile;
use DbBench\Server\StatusDump;
use InvalidArgumentException;
use PHPUnit\Framework\TestCase;

/**
 * Excimer profiles of the app, as the runner's profiled repetition takes them: the
 * collapsed stacks name dbbench's frames. Needs Debian's php-excimer (loaded by the
 * CLI's own configuration here; the launchers load it only when profiling).
 */
final class ProfileTest extends TestCase
{
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

    /** Requests of layer hello until the profile has $samples samples (at most 10 s). */
    private static function serve(Profile $profile, int $samples): void
    {
        $app = App::fromConfig(new Config('hello'));
        $deadline = microtime(true) + 10;
        do {
            for ($i = 0; $i < 1000; $i++) {
                $app->handle('GET', '/hello');
                $app->handle('GET', '/users/x');
                $app->endRequest();
            }
        } while (array_sum($profile->stacks()) < $samples && microtime(true) < $deadline);
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
    private static function assertNames(string $frame, array $stacks): void
    {
        $found = array_filter(array_keys($stacks), static fn (string $s): bool => str_contains($s, $frame));
        self::assertNotEmpty($found, "no stack names $frame: " . implode("\n", array_keys($stacks)));
    }

    public function testAWorkersProfileNamesTheAppsFramesAndIsWrittenWhole(): void
    {
        $file = $this->dir . '/1.collapsed';
        $profile = new Profile($file, 0.0005, EXCIMER_REAL);
        $profile->start();
        self::serve($profile, 200);
        $profile->stop();
        $profile->write();
        $stacks = self::read($file);
        self::assertNames('DbBench\App::handle', $stacks);
        self::assertNames('DbBench\Response::', $stacks);
        self::assertSame($profile->stacks(), $stacks, 'the file holds every sample, once');
        // No stack starts with an empty frame.
        self::assertSame([], array_filter(array_keys($stacks), static fn (string $s): bool => $s[0] === ';'));
        self::assertSame([$file], glob($this->dir . '/*'), 'no temporary file left');
    }

    public function testARequestsStacksAreAppended(): void
    {
        $file = $this->dir . '/2.collapsed';
        foreach ([1, 2] as $request) {
            $profile = new Profile($file, 0.0005, EXCIMER_REAL);
            $profile->start();
            self::serve($profile, 20);
            $profile->stop();
            $profile->append(); // as php-fpm does at the end of each request
        }
        $stacks = self::read($file);
        self::assertNames('DbBench\App::handle', $stacks);
        self::assertGreaterThanOrEqual(40, array_sum($stacks), 'both requests\' samples');
    }

    /**
     * php-fpm's timed samples: one line per sample, its CLOCK_MONOTONIC time inside the
     * request, its stack spelled as the collapsed file spells it.
     */
    public function testARequestsTimedSamplesAreAppended(): void
    {
        $file = $this->dir . '/4.collapsed';
        $start = hrtime(true);
        $profile = new Profile($file, 0.0005, EXCIMER_REAL, '', true);
        $profile->start();
        self::serve($profile, 20);
        $profile->stop();
        $profile->append();
        $end = hrtime(true);
        $collapsed = self::read($file);
        $lines = file(Profile::timedFile($file), FILE_IGNORE_NEW_LINES) ?: [];
        self::assertGreaterThanOrEqual(20, count($lines));
        $last = 0;
        foreach ($lines as $line) {
            self::assertMatchesRegularExpression('/\A\d+ \S+\z/', $line);
            [$at, $stack] = explode(' ', $line);
            self::assertGreaterThanOrEqual($start, (int) $at);
            self::assertLessThanOrEqual($end, (int) $at);
            self::assertGreaterThanOrEqual($last, (int) $at, 'in the order they were taken');
            $last = (int) $at;
            self::assertArrayHasKey($stack, $collapsed, 'a timed stack is spelled as a collapsed one');
        }
    }

    public function testTheCpuClockCountsCpuTimeOnly(): void
    {
        $profile = new Profile($this->dir . '/3.collapsed', 0.0005, EXCIMER_CPU);
        $profile->start();
        usleep(300_000); // no CPU: no sample
        $profile->stop();
        self::assertSame([], $profile->stacks());
    }

    public function testAStatusDumpWritesTheProfileToo(): void
    {
        $profile = new Profile($this->dir . '/' . getmypid() . '.collapsed', 0.0005, EXCIMER_REAL);
        $profile->start();
        self::serve($profile, 20);
        $dump = new StatusDump($this->dir, $profile);
        $dump->write();
        $profile->stop();
        self::assertFileExists(sprintf('%s/%d.json', $this->dir, getmypid()));
        self::assertNames('DbBench\App::handle', self::read(sprintf('%s/%d.collapsed', $this->dir, getmypid())));
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
