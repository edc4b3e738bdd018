<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\App;
use DbBench\Config;
use DbBench\Layer\Declaration;
use DbBench\Layer\Hello;
use DbBench\Layer\Layer;
use DbBench\Layer\Raw;
use DbBench\Response;
use PDOException;
use PHPUnit\Framework\TestCase;

/**
 * Routing and error mapping, with a layer that answers from an array (or fails like a
 * database that is down). The real layers are tested against MariaDB through nginx +
 * php-fpm: runners/target/php_test.go.
 */
final class AppTest extends TestCase
{
    /** A layer with users 1..1000 that records the ids it is asked for. */
    private static function layer(?PDOException $failure = null): Layer
    {
        return new class ($failure) implements Layer {
            /** @var list<int> */
            public array $asked = [];
            public int $ended = 0;

            public static function declaration(): Declaration
            {
                return Declaration::database('raw', 'fake', 'none', ['prepare'], ['persistent']);
            }

            public function __construct(private readonly ?PDOException $failure)
            {
            }

            public function user(int $id): ?array
            {
                $this->asked[] = $id;
                if ($this->failure !== null) {
                    throw $this->failure;
                }
                return $id <= 1000 ? ['id' => $id, 'name' => "user $id"] : null;
            }

            public function endRequest(): void
            {
                $this->ended++;
            }
        };
    }

    private static function app(): App
    {
        return new App(self::layer());
    }

    /** @return array<string, mixed> */
    private static function decode(Response $r): array
    {
        self::assertSame('application/json', $r->contentType);
        return json_decode($r->body, true, 4, JSON_THROW_ON_ERROR);
    }

    public function testHello(): void
    {
        foreach ([self::app(), new App(new Hello())] as $app) {
            $r = $app->handle('GET', '/hello');
            self::assertSame(200, $r->status);
            self::assertSame('Hello, World!', $r->body);
            self::assertSame('text/plain; charset=utf-8', $r->contentType);
        }
    }

    public function testUser(): void
    {
        $layer = self::layer();
        $r = (new App($layer))->handle('GET', '/users/42?trace=1');
        self::assertSame([42], $layer->asked);
        self::assertSame(200, $r->status);
        self::assertSame('{"id":42,"name":"user 42"}', $r->body);
        self::assertSame(['id' => 42, 'name' => 'user 42'], self::decode($r));
    }

    public function testPercentEncodedDigitsAreTheId(): void
    {
        self::assertSame(200, self::app()->handle('GET', '/users/%34%32')->status);
    }

    public function testHeadIsARead(): void
    {
        self::assertSame(200, self::app()->handle('HEAD', '/users/1')->status);
    }

    /** @return array<string, array{string, string}> request targets as a client sends them */
    public function badIds(): array
    {
        $digits = 'bad id: id must contain only the digits 0-9';
        $tooLarge = 'bad id: id must be at most 4294967295';
        return [
            'letters' => ['/users/abc', $digits],
            'negative' => ['/users/-1', $digits],
            'zero' => ['/users/0', 'bad id: id must be at least 1'],
            'decimal' => ['/users/1.5', $digits],
            'too big' => ['/users/99999999999', $tooLarge],
            'sql' => ['/users/1;DROP%20TABLE%20users', $digits],
            'quote' => ['/users/%27', $digits],
            'encoded slash' => ['/users/1%2F2', $digits],
            'empty' => ['/users/', 'bad id: id is empty'],
            '10 kB of digits' => ['/users/' . str_repeat('1', 10240), $tooLarge],
        ];
    }

    /** @dataProvider badIds */
    public function testBadIdIs400AndNeverReachesTheLayer(string $uri, string $error): void
    {
        $layer = self::layer();
        $r = (new App($layer))->handle('GET', $uri);
        self::assertSame(400, $r->status);
        self::assertSame(['error' => $error], self::decode($r));
        self::assertSame([], $layer->asked);
    }

    public function testUnknownUserIs404(): void
    {
        $r = self::app()->handle('GET', '/users/1001');
        self::assertSame(404, $r->status);
        self::assertSame(['error' => 'user 1001 not found'], self::decode($r));
    }

    /** @return array<string, array{string}> */
    public function otherPaths(): array
    {
        return [
            'root' => ['/'],
            'users' => ['/users'],
            'trailing slash' => ['/users/42/'],
            'deeper' => ['/users/42/name'],
            'hello slash' => ['/hello/'],
            'front controller' => ['/index.php'],
        ];
    }

    /** @dataProvider otherPaths */
    public function testOtherPathsAre404(string $uri): void
    {
        $r = self::app()->handle('GET', $uri);
        self::assertSame(404, $r->status);
        self::assertSame(['error' => sprintf('no such path: "%s"', $uri)], self::decode($r));
    }

    public function testLongPathIsNotEchoedWhole(): void
    {
        $r = self::app()->handle('GET', '/' . str_repeat('x', 10000));
        self::assertSame(404, $r->status);
        self::assertSame(['error' => 'no such path: "/' . str_repeat('x', 63) . '…"'], self::decode($r));
    }

    public function testHelloLayerHasNoUsers(): void
    {
        $r = (new App(new Hello()))->handle('GET', '/users/1');
        self::assertSame(404, $r->status);
        self::assertSame(['error' => 'no such path: "/users/1"'], self::decode($r));
    }

    /** @return array<string, array{string, string}> */
    public function otherMethods(): array
    {
        return [
            'POST user' => ['POST', '/users/42'],
            'DELETE user' => ['DELETE', '/users/42'],
            'PUT hello' => ['PUT', '/hello'],
        ];
    }

    /** @dataProvider otherMethods */
    public function testOtherMethodsAre405(string $method, string $uri): void
    {
        $r = self::app()->handle($method, $uri);
        self::assertSame(405, $r->status);
        self::assertSame('GET, HEAD', $r->headers['Allow']);
        self::assertSame(['error' => sprintf('method "%s" not allowed (only GET)', $method)], self::decode($r));
    }

    public function testDatabaseFailureIs503WithDetailsInTheLogOnly(): void
    {
        $message = 'SQLSTATE[HY000] [2002] Connection refused';
        $log = tempnam(sys_get_temp_dir(), 'dbbench-apptest-');
        $old = ini_set('error_log', $log);
        try {
            $r = (new App(self::layer(new PDOException($message))))->handle('GET', '/users/7');
        } finally {
            ini_set('error_log', (string) $old);
        }
        $logged = (string) file_get_contents($log);
        unlink($log);

        self::assertSame(503, $r->status);
        self::assertSame(['error' => 'database unavailable'], self::decode($r));
        self::assertStringContainsString('GET /users/7: database error: ' . $message, $logged);
    }

    public function testFromConfigBuildsTheNamedLayer(): void
    {
        $config = new Config('raw', 'prepare', 'persistent', '127.0.0.1', 3306, 'dbbench', 'u');
        $r = (new \ReflectionProperty(App::class, 'layer'))->getValue(App::fromConfig($config));
        self::assertInstanceOf(Raw::class, $r);
        $hello = (new \ReflectionProperty(App::class, 'layer'))->getValue(App::fromConfig(new Config('hello')));
        self::assertInstanceOf(Hello::class, $hello);
    }

    /** A resident worker's loop: the same App, its layer told after every request. */
    public function testEndRequestReachesTheLayerOncePerCall(): void
    {
        $layer = self::layer();
        $app = new App($layer);
        foreach ([42, 43, 42] as $i => $id) {
            self::assertSame(200, $app->handle('GET', "/users/$id")->status);
            self::assertSame($i, $layer->ended, 'handle() alone does not end the request');
            $app->endRequest();
            self::assertSame($i + 1, $layer->ended);
        }
        self::assertSame([42, 43, 42], $layer->asked);
    }

    public function testHelloEndRequestIsHarmless(): void
    {
        $app = new App(new Hello());
        $app->endRequest();
        self::assertSame(200, $app->handle('GET', '/hello')->status);
    }
}
