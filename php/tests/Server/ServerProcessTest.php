<?php

declare(strict_types=1);

namespace DbBench\Tests\Server;

use PHPUnit\Framework\TestCase;
use RuntimeException;

/**
 * The worker server as real processes: tests/fixtures/hello-server.php (the same Cli,
 * Master and Worker as bin/worker.php, with a test handler and short timeouts) on a free
 * port, spoken to over raw sockets. Waits have generous deadlines; nothing is timed.
 */
final class ServerProcessTest extends TestCase
{
    private const FIXTURE = __DIR__ . '/../fixtures/hello-server.php';
    private const WAIT = 15.0;

    /** @var resource|null */
    private mixed $process = null;
    private int $master = 0;
    private int $port = 0;
    private string $dir = '';

    protected function tearDown(): void
    {
        if ($this->process !== null) {
            // Whatever a failed test left: the master and all its workers.
            foreach ([...self::children($this->master), $this->master] as $pid) {
                posix_kill($pid, SIGKILL);
            }
            proc_close($this->process);
        }
        if ($this->dir !== '') {
            exec('rm -rf ' . escapeshellarg($this->dir));
        }
    }

    public function testKeepAlivePipeliningHeadAndErrors(): void
    {
        $this->start();
        $c = $this->connect();
        fwrite($c, "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n");
        $r = self::response($c);
        self::assertSame(200, $r['status']);
        self::assertSame('Hello, World!', $r['body']);
        self::assertSame('13', $r['headers']['content-length']);
        self::assertSame('keep-alive', $r['headers']['connection']);
        self::assertArrayNotHasKey('x-powered-by', $r['headers']);
        self::assertArrayNotHasKey('server', $r['headers']);

        // Three requests in one write: three answers in order; HEAD's has no body, or the
        // next answer would not parse.
        fwrite($c, "GET /ended HTTP/1.1\r\nHost: t\r\n\r\nHEAD /hello HTTP/1.1\r\nHost: t\r\n\r\n"
            . "GET /ended HTTP/1.1\r\nHost: t\r\n\r\n");
        $ended = self::response($c);
        $head = self::response($c, true);
        $after = self::response($c);
        self::assertSame([200, 200, 200], [$ended['status'], $head['status'], $after['status']]);
        self::assertSame('', $head['body']);
        self::assertSame('13', $head['headers']['content-length']);
        // endRequest ran after each request: GET /ended, HEAD /hello.
        self::assertSame((int) $ended['body'] + 2, (int) $after['body']);

        // A handler's exception: a 500 with nothing of it, and the connection goes on.
        fwrite($c, "GET /boom HTTP/1.1\r\nHost: t\r\n\r\nPOST /hello HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\n"
            . "abcdeGET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
        $boom = self::response($c);
        self::assertSame(500, $boom['status']);
        self::assertSame('{"error":"internal error"}', $boom['body']);
        self::assertSame(405, self::response($c)['status']);
        $last = self::response($c);
        self::assertSame('close', $last['headers']['connection']);
        self::assertNull(self::response($c), 'closed after "Connection: close"');
        self::assertStringContainsString('RuntimeException: the handler fails on purpose', $this->stderr());

        // A 4 MiB answer leaves in pieces, whole, and the next one follows it intact.
        $c = $this->connect();
        fwrite($c, "GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /hello HTTP/1.1\r\nHost: t\r\n\r\n");
        // Not a byte read until the server has filled the socket buffers: what it has not
        // got out waits in its socket, and leaves in pieces as we read.
        $this->until(fn (): ?bool => self::unsent($this->port, $c) > 0 ?: null, 'the server to fill the buffers');
        $big = self::response($c);
        self::assertSame(str_repeat('0123456789abcdef', 1 << 18), $big['body']);
        self::assertSame('Hello, World!', self::response($c)['body']);

        // HTTP/1.0: closed unless asked otherwise.
        $c = $this->connect();
        fwrite($c, "GET /hello HTTP/1.0\r\n\r\n");
        self::assertSame('close', self::response($c)['headers']['connection']);
        self::assertNull(self::response($c));
        $c = $this->connect();
        fwrite($c, "GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /hello HTTP/1.0\r\n\r\n");
        self::assertSame('keep-alive', self::response($c)['headers']['connection']);
        self::assertSame('close', self::response($c)['headers']['connection']);
    }

    public function testHostileRequestsAreRefusedAndClosed(): void
    {
        $this->start();
        $cases = [
            'garbage' => ["hello\r\n\r\n", 400],
            'HTTP/0.9' => ["GET /\r\n\r\n", 400],
            'HTTP/2 preface' => ["PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505],
            'NUL in the path' => ["GET /hello\x00 HTTP/1.1\r\nHost: t\r\n\r\n", 400],
            'no colon' => ["GET /hello HTTP/1.1\r\nHost: t\r\nBroken header\r\n\r\n", 400],
            'space before colon' => ["GET /hello HTTP/1.1\r\nHost : t\r\n\r\n", 400],
            'two lengths' => ["POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400],
            'length and chunked' =>
                ["POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\nab", 400],
            'chunked' => ["POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 411],
            'huge length' => ["POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999999999999999\r\n\r\n", 413],
            'long target' => ['GET /' . str_repeat('1', 70000) . " HTTP/1.1\r\nHost: t\r\n\r\n", 414],
            'long header' => ["GET /hello HTTP/1.1\r\nHost: t\r\nX-Big: " . str_repeat('a', 200000) . "\r\n\r\n", 431],
        ];
        foreach ($cases as $name => [$bytes, $status]) {
            $c = $this->connect();
            fwrite($c, $bytes . "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n");
            $r = self::response($c);
            self::assertNotNull($r, "$name: no answer");
            self::assertSame($status, $r['status'], "$name: " . $r['body']);
            self::assertSame('close', $r['headers']['connection'], $name);
            self::assertNull(self::response($c), "$name: the request behind it must not be answered");
        }

        // Clients that leave without reading what they asked for: the workers live on.
        $workers = $this->workers(2);
        for ($i = 0; $i < 20; $i++) {
            $c = $this->connect();
            fwrite($c, str_repeat("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n", 200));
            fclose($c);
        }
        self::assertSame('Hello, World!', $this->get('/hello')['body']);
        self::assertSame($workers, self::children($this->master));

        // Stalled requests hold a slot of a worker, not the worker: others are served.
        $stalled = [];
        for ($i = 0; $i < 8; $i++) {
            $stalled[] = $c = $this->connect();
            fwrite($c, "GET /hello HTTP/1.1\r\nHost:");
        }
        for ($i = 0; $i < 8; $i++) {
            $c = $this->connect();
            fwrite($c, "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n");
            self::assertSame(200, self::response($c)['status']);
        }
        // And the request timeout (1 s in the fixture) closes them without an answer.
        foreach ($stalled as $c) {
            self::assertSame('', stream_get_contents($c));
            self::assertTrue(feof($c));
        }
        self::assertStringNotContainsString('PHP ', $this->stderr(), 'no warning, notice or error');
    }

    public function testRestartStatusDumpAndGracefulStop(): void
    {
        $this->start();
        $workers = $this->workers(2);
        $victim = $workers[0];
        posix_kill($victim, SIGKILL);
        $workers = $this->until(function () use ($victim): ?array {
            $now = self::children($this->master);
            return count($now) === 2 && !in_array($victim, $now, true) ? $now : null;
        }, 'the master to replace the killed worker');
        self::assertStringContainsString("worker $victim was killed by signal 9", $this->stderr());

        $first = $this->dump($workers);
        $sent = 10;
        for ($i = 0; $i < $sent; $i++) {
            self::assertSame('Hello, World!', $this->get('/hello')['body']);
        }
        $second = $this->dump($workers);
        $served = static fn (array $dumps): int => array_sum(array_column($dumps, 'requests'));
        self::assertSame($sent, $served($second) - $served($first));
        foreach ($second as $pid => $d) {
            self::assertSame(
                ['pid', 'requests', 'last_request_peak_memory', 'mean_request_peak_memory',
                    'last_request_peak_real_memory', 'mean_request_peak_real_memory', 'memory', 'started', 'dumped'],
                array_keys($d),
            );
            self::assertSame($pid, $d['pid']);
            // What the resident app keeps between requests: the app itself, at least.
            self::assertIsInt($d['memory']);
            self::assertGreaterThan(0, $d['memory']);
            self::assertIsFloat($d['mean_request_peak_memory']);
            self::assertIsFloat($d['started']);
            self::assertGreaterThanOrEqual($first[$pid]['dumped'], $d['dumped']);
            if ($d['requests'] > 0) {
                self::assertGreaterThan(0, $d['last_request_peak_memory']);
                self::assertGreaterThan(0.0, $d['mean_request_peak_memory']);
                // Whole 2 MiB chunks of PHP's allocator, at least the one it always holds.
                self::assertGreaterThanOrEqual(2 << 20, $d['last_request_peak_real_memory']);
                self::assertSame(0, $d['last_request_peak_real_memory'] % (2 << 20));
                self::assertGreaterThanOrEqual($d['last_request_peak_memory'], $d['last_request_peak_real_memory']);
            }
        }

        // A request under way when SIGTERM comes is answered, with "Connection: close";
        // an idle connection is closed; then the master exits 0 and nothing is left.
        $idle = $this->connect();
        fwrite($idle, "GET /hello HTTP/1.1\r\nHost: t\r\n\r\n");
        self::assertSame(200, self::response($idle)['status']);
        $slow = $this->connect();
        fwrite($slow, "GET /slow HTTP/1.1\r\nHost: t\r\n\r\n");
        $this->until(fn (): ?bool => is_file($this->dir . '/slow-started') ?: null, '/slow to begin');
        posix_kill($this->master, SIGTERM);
        $r = self::response($slow);
        self::assertSame([200, 'slow', 'close'], [$r['status'], $r['body'], $r['headers']['connection']]);
        self::assertNull(self::response($slow));
        self::assertNull(self::response($idle));
        self::assertSame(0, $this->exitStatus());
        self::assertSame([], array_filter($workers, self::alive(...)), 'workers left behind');
        self::assertSame('', (string) file_get_contents($this->dir . '/stdout'), 'nothing on stdout');
    }

    public function testWorkersLeaveWhenTheMasterIsKilled(): void
    {
        $this->start();
        $workers = $this->workers(2);
        posix_kill($this->master, SIGKILL);
        $this->until(
            static fn (): ?bool => array_filter($workers, self::alive(...)) === [] ?: null,
            'the workers to notice that their master is gone',
        );
        self::assertStringContainsString('the master is gone', $this->stderr());
    }

    public function testMasterGivesUpWhenWorkersCannotBoot(): void
    {
        $this->start(['FIXTURE_BOOT_FAIL' => '1'], false);
        self::assertSame(1, $this->exitStatus());
        $err = $this->stderr();
        self::assertStringContainsString('boot failed: RuntimeException: boot fails on purpose', $err);
        self::assertStringContainsString('giving up: 5 workers in a row died', $err);
        self::assertSame([], self::children($this->master));
    }

    public function testPortInUseIsAnErrorNotAShare(): void
    {
        // Someone else listens there (with SO_REUSEPORT, as another of our masters would).
        $other = stream_socket_server(
            'tcp://127.0.0.1:0',
            $errno,
            $error,
            STREAM_SERVER_BIND | STREAM_SERVER_LISTEN,
            stream_context_create(['socket' => ['so_reuseport' => true]]),
        );
        $this->port = (int) substr((string) stream_socket_get_name($other, false), strlen('127.0.0.1:'));
        $this->start([], false, $this->port);
        self::assertSame(1, $this->exitStatus());
        self::assertStringContainsString("cannot listen on 127.0.0.1:$this->port", $this->stderr());
        fclose($other);
    }

    public function testBadFlagsExitWithStatus2(): void
    {
        foreach ([[], ['--listen', '127.0.0.1:1'], ['--workers', '2', '--listen', 'nowhere'], ['--bogus']] as $args) {
            $this->dir = sys_get_temp_dir() . '/dbbench-server-test-' . getmypid();
            @mkdir($this->dir);
            $this->process = proc_open(
                [PHP_BINARY, self::FIXTURE, ...$args],
                [
                    0 => ['file', '/dev/null', 'r'],
                    1 => ['file', '/dev/null', 'w'],
                    2 => ['file', $this->dir . '/stderr', 'w'],
                ],
                $pipes,
            );
            self::assertSame(2, $this->exitStatus(), implode(' ', $args));
            self::assertStringContainsString('usage: ', $this->stderr());
            proc_close($this->process);
            $this->process = null;
        }
    }

    /**
     * Starts the fixture on $port, or on a free port it picks (freePort). Another listener
     * can take a picked port before the master binds it; the master then cannot listen
     * and exits, and the fixture starts again on another port. With a port of its own, the
     * test checks what happens there: nothing is retried, and only $waitForPort waits.
     *
     * @param array<string, string> $env
     */
    private function start(array $env = [], bool $waitForPort = true, int $port = 0): void
    {
        $this->dir = sys_get_temp_dir() . '/dbbench-server-test-' . getmypid();
        mkdir($this->dir);
        for ($attempt = 1; true; $attempt++) {
            $this->port = $port === 0 ? self::freePort() : $port;
            $this->launch($env);
            if ($port !== 0 && !$waitForPort) {
                return;
            }
            // The master says so once its sockets listen, before any worker boots.
            $listening = "listening on http://127.0.0.1:$this->port ";
            $this->until(
                fn (): ?bool => str_contains($this->stderr(), $listening) || !self::alive($this->master) ?: null,
                'the server to listen, or to exit',
            );
            if (
                $port !== 0 || $attempt === 5 || str_contains($this->stderr(), $listening)
                || !str_contains($this->stderr(), "cannot listen on 127.0.0.1:$this->port")
            ) {
                return;
            }
            proc_close($this->process);
            $this->process = null;
        }
    }

    /**
     * A port nobody listens on, below the kernel's ephemeral range when that leaves room:
     * outgoing connections take their ports from that range, so none can take this one
     * before the server binds it (as one could a port that listening on :0 gave).
     */
    private static function freePort(): int
    {
        $range = @file_get_contents('/proc/sys/net/ipv4/ip_local_port_range');
        $low = $range === false ? 0 : (int) (preg_split('/\s+/', trim($range)) ?: ['0'])[0];
        for ($i = 0; $low - 10000 >= 1000 && $i < 100; $i++) {
            $port = random_int(10000, $low - 1);
            $probe = @stream_socket_server("tcp://127.0.0.1:$port");
            if ($probe !== false) {
                fclose($probe);
                return $port;
            }
        }
        $probe = stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($probe);
        $port = (int) substr((string) stream_socket_get_name($probe, false), strlen('127.0.0.1:'));
        fclose($probe);
        return $port;
    }

    /** @param array<string, string> $env */
    private function launch(array $env): void
    {
        file_put_contents($this->dir . '/stderr', '');
        $this->process = proc_open(
            [PHP_BINARY, self::FIXTURE, '--listen', '127.0.0.1:' . $this->port, '--workers', '2',
                '--status-dir', $this->dir],
            [
                0 => ['file', '/dev/null', 'r'],
                1 => ['file', $this->dir . '/stdout', 'w'],
                2 => ['file', $this->dir . '/stderr', 'a'],
            ],
            $pipes,
            null,
            [...getenv(), 'FIXTURE_MARKER' => $this->dir . '/slow-started', ...$env],
        );
        $this->master = proc_get_status($this->process)['pid'];
    }

    /** @return resource */
    private function connect(): mixed
    {
        $c = stream_socket_client('tcp://127.0.0.1:' . $this->port, $errno, $error, self::WAIT);
        self::assertNotFalse($c, $error);
        stream_set_timeout($c, (int) self::WAIT);
        return $c;
    }

    /** @return array{status: int, headers: array<string, string>, body: string} */
    private function get(string $path): array
    {
        $c = $this->connect();
        fwrite($c, "GET $path HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
        $r = self::response($c);
        self::assertNotNull($r);
        return $r;
    }

    /**
     * Reads one response; null when the server closed the connection instead.
     *
     * @param resource $c
     * @return array{status: int, headers: array<string, string>, body: string}|null
     */
    private static function response(mixed $c, bool $head = false): ?array
    {
        $line = fgets($c);
        if ($line === false) {
            self::assertTrue(feof($c), 'no answer before the read timeout');
            return null;
        }
        self::assertMatchesRegularExpression('#^HTTP/1\.1 \d{3} .*\r\n$#', $line);
        $headers = [];
        while (($field = fgets($c)) !== "\r\n") {
            self::assertIsString($field, 'the head ended early');
            [$name, $value] = explode(':', rtrim($field, "\r\n"), 2);
            $headers[strtolower($name)] = trim($value);
        }
        $length = $head ? 0 : (int) $headers['content-length'];
        $body = $length > 0 ? (string) stream_get_contents($c, $length) : '';
        self::assertSame($length, strlen($body), 'short body');
        return ['status' => (int) substr($line, 9, 3), 'headers' => $headers, 'body' => $body];
    }

    /**
     * Sends SIGUSR2 and reads the dumps of these workers once both are there.
     *
     * @param list<int> $workers
     * @return array<int, array<string, mixed>>
     */
    private function dump(array $workers): array
    {
        array_map('unlink', glob($this->dir . '/*.json') ?: []);
        posix_kill($this->master, SIGUSR2);
        return $this->until(function () use ($workers): ?array {
            $dumps = [];
            foreach ($workers as $pid) {
                $json = @file_get_contents("$this->dir/$pid.json");
                if ($json === false) {
                    return null;
                }
                $dumps[$pid] = json_decode($json, true, 4, JSON_THROW_ON_ERROR);
            }
            return $dumps;
        }, 'the status dumps');
    }

    /** @return list<int> the master's children, once there are $n */
    private function workers(int $n): array
    {
        return $this->until(function () use ($n): ?array {
            $pids = self::children($this->master);
            return count($pids) === $n ? $pids : null;
        }, "$n workers");
    }

    /** @return list<int> pids whose parent is $parent, from /proc */
    private static function children(int $parent): array
    {
        $pids = [];
        foreach (glob('/proc/[0-9]*/stat') ?: [] as $file) {
            $stat = @file_get_contents($file);
            if ($stat === false) {
                continue;
            }
            // "pid (comm) state ppid …": comm may hold anything, so split after its ")".
            $fields = explode(' ', substr($stat, strrpos($stat, ')') + 2));
            if ((int) $fields[1] === $parent && $fields[0] !== 'Z') {
                $pids[] = (int) basename(dirname($file));
            }
        }
        sort($pids);
        return $pids;
    }

    /**
     * Bytes the server has written on its end of our connection $c that have not reached
     * us (tx_queue in /proc/net/tcp): they wait once our receive buffer is full.
     *
     * @param resource $c
     */
    private static function unsent(int $serverPort, mixed $c): int
    {
        $ours = (int) substr((string) stream_socket_get_name($c, false), strlen('127.0.0.1:'));
        $server = sprintf('0100007F:%04X 0100007F:%04X ', $serverPort, $ours);
        foreach (file('/proc/net/tcp', FILE_IGNORE_NEW_LINES) ?: [] as $line) {
            $f = preg_split('/\s+/', trim($line)) ?: [];
            if (count($f) > 4 && "$f[1] $f[2] " === $server) {
                return (int) hexdec(explode(':', $f[4])[0]);
            }
        }
        return 0;
    }

    /** Whether $pid runs (a zombie does not: it has exited, and only waits to be reaped). */
    private static function alive(int $pid): bool
    {
        $stat = @file_get_contents("/proc/$pid/stat");
        return $stat !== false && substr($stat, strrpos($stat, ')') + 2, 1) !== 'Z';
    }

    private function exitStatus(): int
    {
        return $this->until(function (): ?int {
            $status = proc_get_status($this->process);
            return $status['running'] ? null : $status['exitcode'];
        }, 'the master to exit');
    }

    private function stderr(): string
    {
        return (string) file_get_contents($this->dir . '/stderr');
    }

    /**
     * Polls $check until it returns non-null, failing after WAIT seconds.
     *
     * @template T
     * @param callable(): (T|null) $check
     * @return T
     */
    private function until(callable $check, string $what): mixed
    {
        $deadline = microtime(true) + self::WAIT;
        while (($result = $check()) === null) {
            if (microtime(true) > $deadline) {
                throw new RuntimeException("gave up waiting for $what; stderr:\n" . $this->stderr());
            }
            usleep(20_000);
        }
        return $result;
    }
}
