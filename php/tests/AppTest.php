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
 * php-fpm: runners/measure/target/php_test.go.
 */
final class AppTest extends TestCase
{
    /** A layer with users 1..1000 that records the ids it is asked for. */
    private static function layer(?PDOException $failure = null): Layer
    {
        return new class ($failure) implements Layer {
            /** @var list<int|string> ids for get, "list 0 10", "insert NAME", "visit 7" for the others */
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

            public function users(int $after, int $limit): array
            {
                $this->asked[] = "list $after $limit";
                if ($this->failure !== null) {
                    throw $this->failure;
                }
                $out = [];
                for ($id = $after + 1; $id <= 1000 && count($out) < $limit; $id++) {
                    $out[] = ['id' => $id, 'name' => "user $id"];
                }
                return $out;
            }

            public function insert(string $name): array
            {
                $this->asked[] = "insert $name";
                if ($this->failure !== null) {
                    throw $this->failure;
                }
                return ['id' => 1001, 'name' => $name];
            }

            public function visit(int $id): ?array
            {
                $this->asked[] = "visit $id";
                if ($this->failure !== null) {
                    throw $this->failure;
                }
                return $id <= 1000 ? ['id' => $id, 'visits' => 1] : null;
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
            'trailing slash' => ['/users/42/'],
            'visits trailing slash' => ['/users/42/visits/'],
            'visits of no one' => ['/users//visits'],
            'visits of dot' => ['/users/./visits'],
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

    public function testList(): void
    {
        $layer = self::layer();
        $app = new App($layer);
        $r = $app->handle('GET', '/users?after=997&limit=10');
        self::assertSame(200, $r->status);
        self::assertSame(
            '[{"id":998,"name":"user 998"},{"id":999,"name":"user 999"},{"id":1000,"name":"user 1000"}]',
            $r->body,
        );
        self::assertSame('[]', $app->handle('GET', '/users?after=1000&limit=10')->body);
        self::assertSame(200, $app->handle('HEAD', '/users?limit=1')->status);
        self::assertSame(['list 997 10', 'list 1000 10', 'list 0 1'], $layer->asked);
    }

    /** @return array<string, array{string, string}> */
    public function badLists(): array
    {
        return [
            'no limit' => ['/users', 'bad limit: limit is required (1..1000)'],
            'zero' => ['/users?limit=0', 'bad limit: limit must be at least 1'],
            'too many' => ['/users?limit=1001', 'bad limit: limit must be at most 1000'],
            'bad after' => ['/users?limit=5&after=x', 'bad after: after must contain only the digits 0-9'],
            'twice' => ['/users?limit=5&limit=5', 'bad limit: limit is given more than once'],
            'bad escape' => ['/users?limit=%zz', 'bad query string: a parameter is not percent-encoded properly'],
        ];
    }

    /** @dataProvider badLists */
    public function testBadListIs400AndNeverReachesTheLayer(string $uri, string $error): void
    {
        $layer = self::layer();
        $r = (new App($layer))->handle('GET', $uri);
        self::assertSame([400, ['error' => $error]], [$r->status, self::decode($r)]);
        self::assertSame([], $layer->asked);
    }

    public function testInsert(): void
    {
        $layer = self::layer();
        $r = (new App($layer))->handle('POST', '/users', '{"name":"Zoë Gray #new"}');
        self::assertSame(201, $r->status);
        self::assertSame('{"id":1001,"name":"Zoë Gray #new"}', $r->body);
        self::assertSame('/users/1001', $r->headers['Location']);
        self::assertSame(['insert Zoë Gray #new'], $layer->asked);
    }

    public function testBadBodyIs400AndNeverReachesTheLayer(): void
    {
        $layer = self::layer();
        $r = (new App($layer))->handle('POST', '/users', '{"name":""}');
        self::assertSame([400, ['error' => 'bad body: name is empty']], [$r->status, self::decode($r)]);
        self::assertSame([], $layer->asked);
    }

    public function testVisit(): void
    {
        $layer = self::layer();
        $app = new App($layer);
        $r = $app->handle('POST', '/users/7/visits', 'ignored');
        self::assertSame([200, '{"id":7,"visits":1}'], [$r->status, $r->body]);
        $r = $app->handle('POST', '/users/1001/visits');
        self::assertSame([404, ['error' => 'user 1001 not found']], [$r->status, self::decode($r)]);
        $r = $app->handle('POST', '/users/0/visits');
        self::assertSame([400, ['error' => 'bad id: id must be at least 1']], [$r->status, self::decode($r)]);
        $r = $app->handle('POST', '/users/%34%32/visits');
        self::assertSame([200, '{"id":42,"visits":1}'], [$r->status, $r->body]);
        self::assertSame(['visit 7', 'visit 1001', 'visit 42'], $layer->asked);
    }

    /** @return array<string, array{string, string, string, string}> */
    public function otherOpMethods(): array
    {
        return [
            'PUT users' => ['PUT', '/users', 'GET, HEAD, POST', 'GET or POST'],
            'DELETE users' => ['DELETE', '/users', 'GET, HEAD, POST', 'GET or POST'],
            'GET visits' => ['GET', '/users/7/visits', 'POST', 'POST'],
            'HEAD visits' => ['HEAD', '/users/7/visits', 'POST', 'POST'],
        ];
    }

    /** @dataProvider otherOpMethods */
    public function testOtherOpMethodsAre405(string $method, string $uri, string $allow, string $only): void
    {
        $layer = self::layer();
        $r = (new App($layer))->handle($method, $uri);
        self::assertSame(405, $r->status);
        self::assertSame($allow, $r->headers['Allow']);
        self::assertSame(['error' => sprintf('method "%s" not allowed (only %s)', $method, $only)], self::decode($r));
        self::assertSame([], $layer->asked);
    }

    public function testHelloLayerHasNoOps(): void
    {
        $app = new App(new Hello());
        foreach ([['GET', '/users?limit=1'], ['POST', '/users'], ['POST', '/users/1/visits']] as [$method, $uri]) {
            self::assertSame(404, $app->handle($method, $uri, '{"name":"x"}')->status, "$method $uri");
        }
    }
}
