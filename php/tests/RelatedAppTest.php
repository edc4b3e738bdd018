<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\App;
use DbBench\Layer\Declaration;
use DbBench\Layer\Layer;
use DbBench\Layer\Related;
use DbBench\Response;
use PDOException;
use PHPUnit\Framework\TestCase;

/**
 * GET /users/{id}/orders and GET /users?…&orders= (the orders ops): routing, parsing and
 * error mapping, with a layer that answers from arrays. Users 1..1000; user u has orders
 * (u-1)*10+1 .. u*10, total = id * 7919 % 100000, but user 1000 has none. The layer
 * offers join and eager for one user, every form for a list, as raw does.
 */
final class RelatedAppTest extends TestCase
{
    private static function layer(?PDOException $failure = null): Layer&Related
    {
        return new class ($failure) implements Layer, Related {
            /** @var list<string> "orders 7 10 join", "listorders 0 20 3 lazy" */
            public array $asked = [];

            public static function declaration(): Declaration
            {
                return Declaration::database('raw', 'fake', 'none', ['prepare'], ['persistent'], fetch: [
                    'orders' => [self::JOIN, self::EAGER],
                    'listorders' => [self::JOIN, self::EAGER, self::LAZY],
                ]);
            }

            public function __construct(private readonly ?PDOException $failure)
            {
            }

            public function userOrders(int $id, int $limit, string $fetch): ?array
            {
                $this->asked[] = "orders $id $limit $fetch";
                if ($this->failure !== null) {
                    throw $this->failure;
                }
                return $id <= 1000 ? self::withOrders($id, $limit) : null;
            }

            public function usersWithOrders(int $after, int $limit, int $per, string $fetch): array
            {
                $this->asked[] = "listorders $after $limit $per $fetch";
                if ($this->failure !== null) {
                    throw $this->failure;
                }
                $out = [];
                for ($id = $after + 1; $id <= 1000 && count($out) < $limit; $id++) {
                    $out[] = self::withOrders($id, $per);
                }
                return $out;
            }

            /** @return array{id: int, name: string, orders: list<array{id: int, total: int}>} */
            private static function withOrders(int $id, int $n): array
            {
                $orders = [];
                for ($o = $id * 10; $id < 1000 && $o > ($id - 1) * 10 && count($orders) < $n; $o--) {
                    $orders[] = ['id' => $o, 'total' => $o * 7919 % 100000];
                }
                return ['id' => $id, 'name' => "user $id", 'orders' => $orders];
            }

            public function user(int $id): ?array
            {
                $this->asked[] = "get $id";
                return null;
            }

            public function users(int $after, int $limit): array
            {
                $this->asked[] = "list $after $limit";
                return [];
            }

            public function insert(string $name): array
            {
                return ['id' => 1001, 'name' => $name];
            }

            public function visit(int $id): ?array
            {
                $this->asked[] = "visit $id";
                return null;
            }

            public function endRequest(): void
            {
            }
        };
    }

    /** @return array<string, mixed> */
    private static function decode(Response $r): array
    {
        self::assertSame('application/json', $r->contentType);
        return json_decode($r->body, true, 8, JSON_THROW_ON_ERROR);
    }

    public function testUserOrders(): void
    {
        $layer = self::layer();
        $app = new App($layer);
        $r = $app->handle('GET', '/users/7/orders?limit=2&fetch=join');
        self::assertSame(200, $r->status);
        self::assertSame(
            '{"id":7,"name":"user 7","orders":[{"id":70,"total":54330},{"id":69,"total":46411}]}',
            $r->body,
        );
        $r = $app->handle('HEAD', '/users/%31000/orders?fetch=eager&limit=100&trace=1');
        self::assertSame([200, '{"id":1000,"name":"user 1000","orders":[]}'], [$r->status, $r->body]);
        // Go's ServeMux matches a segment decoded.
        self::assertSame(200, $app->handle('GET', '/users/7/%6Frders?limit=1&fetch=join')->status);
        self::assertSame(['orders 7 2 join', 'orders 1000 100 eager', 'orders 7 1 join'], $layer->asked);
    }

    public function testUnknownUserIs404(): void
    {
        $r = (new App(self::layer()))->handle('GET', '/users/1001/orders?limit=1&fetch=eager');
        self::assertSame([404, ['error' => 'user 1001 not found']], [$r->status, self::decode($r)]);
    }

    /** @return array<string, array{string, string}> */
    public function badUserOrders(): array
    {
        return [
            'bad id first' => ['/users/0/orders?fetch=x', 'bad id: id must be at least 1'],
            'empty id' => ['/users/%20/orders?limit=1&fetch=join', 'bad id: id must contain only the digits 0-9'],
            'no limit' => ['/users/7/orders', 'bad limit: limit is required (1..100)'],
            'limit zero' => ['/users/7/orders?limit=0&fetch=join', 'bad limit: limit must be at least 1'],
            'limit too large' => ['/users/7/orders?limit=101&fetch=join', 'bad limit: limit must be at most 100'],
            'orders is not limit' => ['/users/7/orders?orders=3&fetch=join', 'bad limit: limit is required (1..100)'],
            'no fetch' => ['/users/7/orders?limit=3', 'bad fetch: fetch is required (join, eager or lazy)'],
            'not offered' => [
                '/users/7/orders?limit=3&fetch=lazy',
                'bad fetch: "lazy" is not a form this layer offers (join, eager)',
            ],
            'unknown form' => [
                '/users/7/orders?limit=3&fetch=%22x%22',
                'bad fetch: "\"x\"" is not a form this layer offers (join, eager)',
            ],
        ];
    }

    /** @dataProvider badUserOrders */
    public function testBadUserOrdersIs400AndNeverReachesTheLayer(string $uri, string $error): void
    {
        $layer = self::layer();
        $r = (new App($layer))->handle('GET', $uri);
        self::assertSame([400, ['error' => $error]], [$r->status, self::decode($r)]);
        self::assertSame([], $layer->asked);
    }

    public function testListOrders(): void
    {
        $layer = self::layer();
        $app = new App($layer);
        $r = $app->handle('GET', '/users?after=998&limit=5&orders=2&fetch=lazy');
        self::assertSame(200, $r->status);
        self::assertSame(
            '[{"id":999,"name":"user 999","orders":[{"id":9990,"total":10810},{"id":9989,"total":2891}]},'
            . '{"id":1000,"name":"user 1000","orders":[]}]',
            $r->body,
        );
        self::assertSame('[]', $app->handle('GET', '/users?after=1000&limit=5&orders=2&fetch=join')->body);
        // Without an orders parameter, as sent, it is the plain list.
        self::assertSame(200, $app->handle('GET', '/users?limit=5&%6Frders=2&fetch=join')->status);
        self::assertSame(
            ['listorders 998 5 2 lazy', 'listorders 1000 5 2 join', 'list 0 5'],
            $layer->asked,
        );
    }

    /** @return array<string, array{string, string}> */
    public function badListOrders(): array
    {
        return [
            "the list's limit first" => ['/users?orders=0&fetch=x', 'bad limit: limit is required (1..1000)'],
            "the list's after" => [
                '/users?limit=1&after=x&orders=1',
                'bad after: after must contain only the digits 0-9',
            ],
            'orders empty' => ['/users?limit=5&orders', 'bad orders: orders is empty'],
            'orders zero' => ['/users?limit=5&orders=0&fetch=join', 'bad orders: orders must be at least 1'],
            'orders too many' => ['/users?limit=5&orders=101&fetch=join', 'bad orders: orders must be at most 100'],
            'orders twice' => [
                '/users?limit=5&orders=1&fetch=join&orders=1',
                'bad orders: orders is given more than once',
            ],
            'no fetch' => ['/users?limit=5&orders=1', 'bad fetch: fetch is required (join, eager or lazy)'],
            'bad escape, ignored by the list' => [
                '/users?limit=5&x=%z&orders=1&fetch=join',
                'bad query string: a parameter is not percent-encoded properly',
            ],
            'not offered' => [
                '/users?limit=5&orders=1&fetch=Join',
                'bad fetch: "Join" is not a form this layer offers (join, eager, lazy)',
            ],
        ];
    }

    /** @dataProvider badListOrders */
    public function testBadListOrdersIs400AndNeverReachesTheLayer(string $uri, string $error): void
    {
        $layer = self::layer();
        $r = (new App($layer))->handle('GET', $uri);
        self::assertSame([400, ['error' => $error]], [$r->status, self::decode($r)]);
        self::assertSame([], $layer->asked);
    }

    public function testOtherMethodsAre405(): void
    {
        foreach (['POST', 'PUT', 'DELETE'] as $method) {
            $layer = self::layer();
            $r = (new App($layer))->handle($method, '/users/7/orders?limit=1&fetch=join');
            self::assertSame(405, $r->status);
            self::assertSame('GET, HEAD', $r->headers['Allow']);
            self::assertSame(['error' => sprintf('method "%s" not allowed (only GET)', $method)], self::decode($r));
            self::assertSame([], $layer->asked);
        }
    }

    /** @return array<string, array{string}> */
    public function otherPaths(): array
    {
        return [
            'trailing slash' => ['/users/7/orders/'],
            'of no one' => ['/users//orders'],
            'of dot' => ['/users/./orders'],
            'of dot dot' => ['/users/../orders'],
            'deeper' => ['/users/7/orders/1'],
        ];
    }

    /** @dataProvider otherPaths */
    public function testOtherPathsAre404(string $uri): void
    {
        $r = (new App(self::layer()))->handle('GET', $uri . '?limit=1&fetch=join');
        self::assertSame([404, ['error' => sprintf('no such path: "%s"', $uri)]], [$r->status, self::decode($r)]);
    }

    public function testDatabaseFailureIs503(): void
    {
        $old = ini_set('error_log', '/dev/null');
        try {
            $app = new App(self::layer(new PDOException('SQLSTATE[HY000] [2002] Connection refused')));
            $one = $app->handle('GET', '/users/7/orders?limit=1&fetch=join');
            $list = $app->handle('GET', '/users?limit=1&orders=1&fetch=lazy');
        } finally {
            ini_set('error_log', (string) $old);
        }
        foreach ([$one, $list] as $r) {
            self::assertSame([503, ['error' => 'database unavailable']], [$r->status, self::decode($r)]);
        }
    }

    /** A layer that reads no related rows: both ops are a 400 there, as in Go. */
    public function testLayerWithoutRelatedRows(): void
    {
        $layer = new class implements Layer {
            public static function declaration(): Declaration
            {
                // Declared, but the class is not Related: App offers nothing.
                return Declaration::database('raw', 'fake', 'none', ['prepare'], ['persistent'], fetch: [
                    'orders' => ['join'],
                ]);
            }

            public function user(int $id): ?array
            {
                return null;
            }

            public function users(int $after, int $limit): array
            {
                return [];
            }

            public function insert(string $name): array
            {
                return ['id' => 1, 'name' => $name];
            }

            public function visit(int $id): ?array
            {
                return null;
            }

            public function endRequest(): void
            {
            }
        };
        $app = new App($layer);
        foreach (['/users/7/orders?limit=1&fetch=join', '/users?limit=1&orders=1&fetch=join'] as $uri) {
            $r = $app->handle('GET', $uri);
            $want = [400, ['error' => 'bad fetch: this layer reads no related rows']];
            self::assertSame($want, [$r->status, self::decode($r)]);
        }
        self::assertSame('[]', $app->handle('GET', '/users?limit=1')->body);
    }

    /** The route's segment is decoded for visits too, as Go's ServeMux matches it. */
    public function testVisitsSegmentIsDecoded(): void
    {
        $layer = self::layer();
        $r = (new App($layer))->handle('POST', '/users/7/%76isits');
        self::assertSame([404, ['error' => 'user 7 not found']], [$r->status, self::decode($r)]);
        self::assertSame(['visit 7'], $layer->asked);
    }
}
