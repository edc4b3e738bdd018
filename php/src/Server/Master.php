<?php

declare(strict_types=1);

namespace DbBench\Server;

use Closure;

/**
 * The master process: opens the listening sockets, forks the workers, and only
 * supervises: it restarts a worker that dies, forwards SIGUSR2 (status dump) and turns
 * SIGTERM or SIGINT into a graceful stop of every worker. It serves no request and never
 * builds the application, so it holds no database connection to hand down.
 *
 * One listening socket per worker slot, all bound to the same address with SO_REUSEPORT:
 * the kernel spreads new connections over them by a hash of the client's address and
 * port, whichever worker happens to be on a core. (With one socket shared by all workers,
 * the worker that is running takes a whole burst: wrk's 64 connections went 53/13 over 2
 * workers and 37/29/0/0/0/0/0/0 over 8, leaving six of them idle.) The master keeps every
 * socket open, so connections the kernel gives a slot whose worker is being restarted
 * wait in its backlog for the new worker instead of being reset.
 *
 * Signals are blocked in the master and taken with sigtimedwait(), so none can slip in
 * between a check and a wait; workers unblock them after setting their own handlers.
 */
final class Master
{
    /** The kernel's somaxconn here: a burst of connections queues instead of being refused. */
    private const BACKLOG = 4096;

    /** How long stopping workers get before they are killed. */
    private const DRAIN_TIMEOUT = 10.0;

    /** A worker that dies sooner than this after its fork died "at boot". */
    private const BOOT_WINDOW = 5.0;

    /** Deaths at boot in a row after which the master gives up. */
    private const MAX_BOOT_DEATHS = 5;

    private const SIGNALS = [SIGCHLD, SIGTERM, SIGINT, SIGUSR2];

    /** @var list<resource> the listening socket of each worker slot */
    private array $sockets = [];

    /** @var array<int, array{int, float}> slot and start time by pid */
    private array $workers = [];

    private int $bootDeaths = 0;

    /** @var list<int> slots to fork a worker for again, not before $restartAt */
    private array $missing = [];
    private float $restartAt = 0.0;

    private bool $stopping = false;
    private float $drainUntil = 0.0;
    private int $exitCode = 0;

    /** @param Closure(): Application $boot run in each worker, never here */
    public function __construct(
        private readonly string $listen,
        private readonly int $count,
        private readonly Closure $boot,
        private readonly Limits $limits,
        private readonly ?string $statusDir,
    ) {
    }

    /** @return int the exit status: 0 after a clean stop */
    public function run(): int
    {
        $error = $this->open();
        if ($error !== null) {
            Log::line(sprintf('cannot listen on %s: %s', $this->listen, $error));
            return 1;
        }
        pcntl_sigprocmask(SIG_BLOCK, self::SIGNALS);
        for ($slot = 0; $slot < $this->count; $slot++) {
            $this->fork($slot);
        }
        Log::line(sprintf('listening on http://%s with %d workers', $this->listen, $this->count));
        return $this->supervise();
    }

    /** Opens one listening socket per slot; what went wrong, or null. */
    private function open(): ?string
    {
        // SO_REUSEPORT would let us join the sockets of anyone else (a server left over
        // from an earlier run, as root) on this port: first check that nobody listens.
        $probe = @stream_socket_server('tcp://' . $this->listen, $errno, $error, STREAM_SERVER_BIND);
        if ($probe === false) {
            return $error;
        }
        fclose($probe);
        $context = stream_context_create(['socket' => [
            'backlog' => self::BACKLOG,
            'so_reuseport' => true,
            'tcp_nodelay' => true, // set on each accepted connection: answers leave at once
        ]]);
        for ($slot = 0; $slot < $this->count; $slot++) {
            $socket = @stream_socket_server(
                'tcp://' . $this->listen,
                $errno,
                $error,
                STREAM_SERVER_BIND | STREAM_SERVER_LISTEN,
                $context,
            );
            if ($socket === false) {
                array_map('fclose', $this->sockets);
                $this->sockets = [];
                return $error;
            }
            stream_set_blocking($socket, false);
            $this->sockets[] = $socket;
        }
        return null;
    }

    private function fork(int $slot): void
    {
        // Taken before the fork: a child asking for its parent could already get init's pid.
        $master = getmypid();
        $pid = pcntl_fork();
        if ($pid === 0) {
            $socket = $this->sockets[$slot];
            foreach ($this->sockets as $other => $s) {
                if ($other !== $slot) {
                    fclose($s);
                }
            }
            $this->sockets = [];
            exit((new Worker($socket, $this->boot, $master, $this->limits, $this->statusDir))->run());
        }
        if ($pid === -1) {
            Log::line('fork failed: ' . pcntl_strerror(pcntl_get_last_error()));
            $this->missing[] = $slot;
            $this->restartAt = self::now() + 1.0;
            return;
        }
        $this->workers[$pid] = [$slot, self::now()];
    }

    private function supervise(): int
    {
        while (true) {
            $signal = pcntl_sigtimedwait(self::SIGNALS, $info, ...$this->waitTime());
            if ($signal === SIGTERM || $signal === SIGINT) {
                $this->stop(sprintf('signal %d: stopping the workers', $signal), 0);
            } elseif ($signal === SIGUSR2) {
                $this->signalWorkers(SIGUSR2);
            }
            $this->reap();
            $now = self::now();
            if ($this->stopping) {
                if ($this->workers === []) {
                    return $this->exitCode;
                }
                if ($now >= $this->drainUntil) {
                    return $this->kill();
                }
            } elseif ($this->missing !== [] && $now >= $this->restartAt) {
                $slots = $this->missing;
                $this->missing = [];
                array_map($this->fork(...), $slots);
            }
        }
    }

    /** @return array{int, int} seconds and nanoseconds until the next thing to do */
    private function waitTime(): array
    {
        $until = match (true) {
            $this->stopping => $this->drainUntil,
            $this->missing !== [] => $this->restartAt,
            default => self::now() + 3600.0,
        };
        $wait = max(0.001, $until - self::now());
        return [(int) $wait, (int) (($wait - (int) $wait) * 1e9)];
    }

    private function reap(): void
    {
        while (($pid = pcntl_waitpid(-1, $status, WNOHANG)) > 0) {
            [$slot, $started] = $this->workers[$pid] ?? [-1, self::now()];
            unset($this->workers[$pid]);
            if ($this->stopping) {
                // A worker that got SIGTERM twice (the process group's and ours) ends by the
                // second one once it has drained: PHP's shutdown puts the default action back.
                if ($status !== 0 && !(pcntl_wifsignaled($status) && pcntl_wtermsig($status) === SIGTERM)) {
                    Log::line(sprintf('worker %d %s while stopping', $pid, self::describe($status)));
                }
                continue;
            }
            $lived = self::now() - $started;
            Log::line(sprintf('worker %d %s after %.1f s', $pid, self::describe($status), $lived));
            if ($slot < 0) {
                continue;
            }
            $this->bootDeaths = $lived < self::BOOT_WINDOW ? $this->bootDeaths + 1 : 0;
            if ($this->bootDeaths >= self::MAX_BOOT_DEATHS) {
                $this->stop(sprintf(
                    'giving up: %d workers in a row died within %.0f s of starting (see above why)',
                    $this->bootDeaths,
                    self::BOOT_WINDOW,
                ), 1);
                continue;
            }
            // A worker that lived is replaced at once; one that dies at boot, ever more slowly.
            $delay = $this->bootDeaths === 0 ? 0.0 : 0.1 * 2 ** ($this->bootDeaths - 1);
            $this->missing[] = $slot;
            $this->restartAt = max($this->restartAt, self::now() + $delay);
        }
    }

    private function stop(string $why, int $exitCode): void
    {
        if ($this->stopping) {
            return;
        }
        Log::line($why);
        $this->stopping = true;
        $this->exitCode = $exitCode;
        $this->missing = [];
        $this->drainUntil = self::now() + self::DRAIN_TIMEOUT;
        $this->signalWorkers(SIGTERM);
        // Once the workers have closed theirs too, new connections are refused at once
        // rather than queued for nobody.
        array_map('fclose', $this->sockets);
        $this->sockets = [];
    }

    private function kill(): int
    {
        Log::line(sprintf(
            'workers %s still running %.0f s after SIGTERM: killing them',
            implode(', ', array_keys($this->workers)),
            self::DRAIN_TIMEOUT,
        ));
        $this->signalWorkers(SIGKILL);
        foreach (array_keys($this->workers) as $pid) {
            pcntl_waitpid($pid, $status);
        }
        return 1;
    }

    private function signalWorkers(int $signal): void
    {
        foreach (array_keys($this->workers) as $pid) {
            posix_kill($pid, $signal);
        }
    }

    private static function describe(int $status): string
    {
        if (pcntl_wifsignaled($status)) {
            return sprintf('was killed by signal %d', pcntl_wtermsig($status));
        }
        return sprintf('exited with status %d', pcntl_wexitstatus($status));
    }

    private static function now(): float
    {
        return hrtime(true) / 1e9;
    }
}
