<?php

declare(strict_types=1);

namespace DbBench\Server;

use Closure;
use DbBench\Profile;
use DbBench\Response;
use Throwable;
use UnexpectedValueException;

/**
 * One worker process: boots the application once, then serves the connections it
 * accepts from its listening socket in a single-threaded stream_select() loop,
 * so a slow client only ever costs a slot in the loop, never the worker's time.
 *
 * Stops on SIGTERM or SIGINT, or when the master is gone: no new connections, the
 * requests under way are answered (with "Connection: close"), idle connections closed.
 */
final class Worker
{
    /** The longest select() wait: the master's death is noticed within it. */
    private const TICK = 1;

    /** Connections taken at most per turn, so that a burst does not starve the others. */
    private const ACCEPT_BATCH = 16;

    /** The listening socket's key among the connections' (integer) keys in select()'s arrays. */
    private const LISTEN_KEY = 'listen';

    /** @var resource|null the listening socket, until the worker stops accepting */
    private mixed $listen;

    /** @var array<int, Connection> by resource id */
    private array $connections = [];

    private Application $app;
    private StatusDump $status;
    private bool $stopWanted = false;
    private bool $dumpWanted = false;
    private bool $stopping = false;
    private float $drainUntil = 0.0;
    private float $nextSweep = 0.0;
    private int $dateSecond = 0;
    private string $date = '';

    /**
     * @param resource $listen this worker's listening socket, inherited from the master
     * @param Closure(): Application $boot
     */
    public function __construct(
        mixed $listen,
        private readonly Closure $boot,
        private readonly int $masterPid,
        private readonly Limits $limits,
        private readonly ?string $statusDir,
    ) {
        $this->listen = $listen;
    }

    /** @return int the process's exit status */
    public function run(): int
    {
        pcntl_async_signals(true);
        pcntl_signal(SIGTERM, function (): void {
            $this->stopWanted = true;
        });
        pcntl_signal(SIGINT, function (): void {
            $this->stopWanted = true;
        });
        pcntl_signal(SIGUSR2, function (): void {
            $this->dumpWanted = true;
        });
        // The master blocks these while it forks; what arrived meanwhile is delivered now.
        pcntl_sigprocmask(SIG_SETMASK, []);
        try {
            // A profiled run: sampling starts before the app is built, so its boot counts.
            $profile = Profile::fromEnvironment(self::class . '::wait');
            $profile?->start();
            $this->status = new StatusDump($this->statusDir, $profile);
            $app = ($this->boot)();
            if (!$app instanceof Application) {
                throw new UnexpectedValueException('the boot callable returned no ' . Application::class);
            }
            $this->app = $app;
        } catch (Throwable $e) {
            Log::line(sprintf('boot failed: %s: %s', $e::class, $e->getMessage()));
            return 3;
        }
        $this->loop();
        $this->status->write(); // the last figures and profile
        $profile?->stop();
        return 0;
    }

    private function loop(): void
    {
        while (true) {
            $now = self::now();
            $this->checkEvents($now);
            if ($this->stopping && ($this->connections === [] || $now >= $this->drainUntil)) {
                break;
            }
            if ($now >= $this->nextSweep) {
                $this->sweep($now);
                $this->nextSweep = $now + 1.0;
            }
            [$read, $write] = $this->interests();
            if ($read === [] && $write === []) {
                usleep(100_000); // cannot happen while accepting; select() refuses empty sets
                continue;
            }
            // Nothing ready, or EINTR: a signal arrived, checkEvents() acts on it.
            if (self::wait($read, $write) <= 0) {
                continue;
            }
            $now = self::now();
            foreach ($write as $id => $stream) {
                $this->writable($this->connections[$id], $now);
            }
            foreach ($read as $id => $stream) {
                if ($id === self::LISTEN_KEY) {
                    $this->accept($now);
                } elseif (isset($this->connections[$id])) {
                    $this->readable($this->connections[$id], $now);
                }
            }
        }
        foreach ($this->connections as $id => $c) {
            $this->drop($id, $c);
        }
    }

    /**
     * Waits until a socket is ready, at most a TICK. A method of its own so that a
     * wall-clock profile tells waiting for work from working (Profile::IDLE).
     *
     * @param array<int|string, resource> $read
     * @param array<int, resource> $write
     * @return int how many are ready; 0 on timeout or EINTR
     */
    private static function wait(array &$read, array &$write): int
    {
        $except = null;
        return (int) @stream_select($read, $write, $except, self::TICK);
    }

    private function checkEvents(float $now): void
    {
        if ($this->dumpWanted) {
            $this->dumpWanted = false;
            $this->status->write();
        }
        if ($this->stopping) {
            return;
        }
        if ($this->stopWanted) {
            $this->beginStop($now);
        } elseif (posix_getppid() !== $this->masterPid) {
            Log::line('the master is gone: stopping');
            $this->beginStop($now);
        }
    }

    /** @return array{array<int|string, resource>, array<int, resource>} what to wait for */
    private function interests(): array
    {
        $read = [];
        $write = [];
        if ($this->listen !== null && count($this->connections) < $this->limits->maxConnections) {
            $read[self::LISTEN_KEY] = $this->listen;
        }
        foreach ($this->connections as $id => $c) {
            // Nothing more is read from a client until it has taken our answers.
            if ($c->out !== '') {
                $write[$id] = $c->stream();
            } else {
                $read[$id] = $c->stream();
            }
        }
        return [$read, $write];
    }

    /** Takes the connections waiting in this worker's own listening socket. */
    private function accept(float $now): void
    {
        for ($n = 0; $n < self::ACCEPT_BATCH && count($this->connections) < $this->limits->maxConnections; $n++) {
            $stream = @stream_socket_accept($this->listen, 0);
            if ($stream === false) {
                return; // none left (or no descriptor left: the next turn retries)
            }
            stream_set_blocking($stream, false);
            stream_set_read_buffer($stream, 0);
            $this->connections[get_resource_id($stream)] = new Connection($stream, $this->limits, $now);
        }
    }

    private function readable(Connection $c, float $now): void
    {
        if (!$c->receive($now)) {
            $this->drop(get_resource_id($c->stream()), $c);
            return;
        }
        if (!$c->lingering) {
            $this->serve($c, $now);
        }
    }

    private function writable(Connection $c, float $now): void
    {
        if (!$c->flush($now)) {
            $this->drop(get_resource_id($c->stream()), $c);
            return;
        }
        if ($c->out !== '') {
            return;
        }
        if ($c->closeAfterWrite) {
            $this->finish($c, $now);
        } elseif ($this->stopping && $c->isIdle()) {
            $this->drop(get_resource_id($c->stream()), $c);
        }
    }

    /** Answers every whole request the connection holds, in order, then writes what it can. */
    private function serve(Connection $c, float $now): void
    {
        while (!$c->closeAfterWrite && ($item = $c->parser->next()) !== null) {
            if ($item instanceof RequestError) {
                $c->out .= $item->response()->render($this->serverHeaders(false));
                $c->closeAfterWrite = true;
                $c->refused = true;
                break;
            }
            $response = $this->respond($item);
            // Decided after the handler: a stop signal may have come while it ran.
            $keepAlive = $item->keepAlive && !$this->stopWanted && !$this->stopping;
            $c->out .= $response->render($this->serverHeaders($keepAlive), $item->method !== 'HEAD');
            $c->closeAfterWrite = !$keepAlive;
        }
        $c->requestStarted = $c->parser->hasPartial() ? ($c->requestStarted ?: $now) : 0.0;
        if ($c->out !== '') {
            $this->writable($c, $now);
        }
    }

    /** The application's response, or a 500 when it throws; endRequest() runs either way. */
    private function respond(Request $request): Response
    {
        memory_reset_peak_usage();
        try {
            $response = $this->app->handle($request->method, $request->target, $request->body);
        } catch (Throwable $e) {
            // A bug, never client input: the details stay in the log.
            Log::line(sprintf(
                '%s %s: %s: %s at %s:%d',
                $request->method,
                substr($request->target, 0, 200),
                $e::class,
                $e->getMessage(),
                $e->getFile(),
                $e->getLine(),
            ));
            $response = Response::error(500, 'internal error');
        }
        try {
            $this->app->endRequest();
        } catch (Throwable $e) {
            Log::line(sprintf('endRequest: %s: %s', $e::class, $e->getMessage()));
        }
        $this->status->record(memory_get_peak_usage(), memory_get_peak_usage(true));
        return $response;
    }

    /** @return array<string, string> */
    private function serverHeaders(bool $keepAlive): array
    {
        $second = time();
        if ($second !== $this->dateSecond) {
            $this->dateSecond = $second;
            $this->date = gmdate('D, d M Y H:i:s', $second) . ' GMT';
        }
        return ['Date' => $this->date, 'Connection' => $keepAlive ? 'keep-alive' : 'close'];
    }

    /** The last response is written: a refused client gets a lingering close, others a close. */
    private function finish(Connection $c, float $now): void
    {
        if ($c->refused) {
            $c->linger($now);
        } else {
            $this->drop(get_resource_id($c->stream()), $c);
        }
    }

    /** Once a second: close what has waited too long. */
    private function sweep(float $now): void
    {
        foreach ($this->connections as $id => $c) {
            $quiet = $now - $c->lastActive;
            $expired = match (true) {
                $c->lingering => $quiet > $this->limits->lingerTimeout,
                $c->out !== '' => $quiet > $this->limits->sendTimeout,
                $c->requestStarted > 0.0 => $now - $c->requestStarted > $this->limits->requestTimeout,
                default => $this->stopping || $quiet > $this->limits->idleTimeout,
            };
            if ($expired) {
                $this->drop($id, $c);
            }
        }
    }

    private function beginStop(float $now): void
    {
        $this->stopping = true;
        $this->drainUntil = $now + $this->limits->drainTimeout;
        if ($this->listen !== null) {
            fclose($this->listen); // this process's descriptor; the master closes its own
            $this->listen = null;
        }
        foreach ($this->connections as $id => $c) {
            if ($c->isIdle()) {
                $this->drop($id, $c);
            }
        }
    }

    private function drop(int $id, Connection $c): void
    {
        $c->close();
        unset($this->connections[$id]);
    }

    private static function now(): float
    {
        return hrtime(true) / 1e9;
    }
}
