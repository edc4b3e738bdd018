<?php

declare(strict_types=1);

namespace DbBench;

use DbBench\Layer\Hello;
use DbBench\Layer\Layer;
use DbBench\Layer\Related;
use PDOException;

/**
 * The endpoint contract every dbbench target keeps (design.md), with the Go targets'
 * messages (go/server): GET /hello; unless the layer has no database (hello), the users
 * endpoints: GET /users/{id} (get), GET /users?after=&limit= (list), POST /users
 * (insert), POST /users/{id}/visits (update), GET /users/{id}/orders?limit=&fetch=
 * (orders) and GET /users?after=&limit=&orders=&fetch= (listorders: the list when its
 * query string has an orders parameter). 400 for bad input (for the orders ops, a form
 * the layer's declaration does not name too), 404 for an unknown id or path, 405 for
 * another method, 503 when the database fails. Errors are JSON and never carry
 * internals: those go to the php-fpm log.
 *
 * The six handlers (user, list, insert, visit, userOrders, listOrders) parse, call the
 * layer and answer alike on purpose, as go/server's do: each reads whole, with no
 * closure shared per request on the measured path.
 */
final class App
{
    private const USERS = '/users';
    private const ALLOW_GET = 'GET, HEAD';
    private const ALLOW_USERS = 'GET, HEAD, POST';
    private const ALLOW_VISITS = 'POST';

    /** Whether the layer has a database, so the users endpoints exist. */
    private readonly bool $users;
    /** The layer, if it reads related rows (the orders ops). */
    private readonly ?Related $related;
    /** @var array{orders: list<string>, listorders: list<string>} the forms it offers, by op */
    private readonly array $fetch;

    public function __construct(private readonly Layer $layer)
    {
        $declaration = $layer::declaration();
        $this->users = $declaration->db;
        $this->related = $layer instanceof Related ? $layer : null;
        // A layer that is not Related offers no form, whatever it declares: each orders op is a 400 there.
        $this->fetch = $this->related !== null ? $declaration->fetch : ['orders' => [], 'listorders' => []];
    }

    /** The app of the configured layer: its class, constructed with the configuration. */
    public static function fromConfig(Config $config): self
    {
        return new self(new ($config->layerClass)($config));
    }

    /**
     * For a resident worker, after every request: the layer drops the request's state
     * and, for conn=per-request, its connection. php-fpm does not call it.
     */
    public function endRequest(): void
    {
        $this->layer->endRequest();
    }

    /**
     * @param string $uri the raw request target (REQUEST_URI), query string included
     * @param string $body the request body; only POST /users reads it
     */
    public function handle(string $method, string $uri, string $body = ''): Response
    {
        [$path, $query] = array_pad(explode('?', $uri, 2), 2, '');
        if ($path === '/hello') {
            return self::isRead($method) ? Hello::response() : self::methodNotAllowed($method, self::ALLOW_GET);
        }
        if ($this->users && $path === self::USERS) {
            return match (true) {
                self::isRead($method) => $this->list($query),
                $method === 'POST' => $this->insert($body),
                default => self::methodNotAllowed($method, self::ALLOW_USERS),
            };
        }
        if ($this->users && str_starts_with($path, self::USERS . '/')) {
            $segments = explode('/', substr($path, strlen(self::USERS) + 1));
            if (count($segments) === 1) {
                // Decoded like Go's PathValue: /users/%34%32 is user 42, %27 a bad id.
                return self::isRead($method)
                    ? $this->user(rawurldecode($segments[0]))
                    : self::methodNotAllowed($method, self::ALLOW_GET);
            }
            // An empty, "." or ".." segment is a path Go's ServeMux would clean: a 404 there too.
            // ServeMux matches a segment decoded: /users/1/%6Frders is /users/1/orders.
            $resource = count($segments) === 2 && !in_array($segments[0], ['', '.', '..'], true)
                ? rawurldecode($segments[1])
                : '';
            if ($resource === 'visits') {
                return $method === 'POST'
                    ? $this->visit(rawurldecode($segments[0]))
                    : self::methodNotAllowed($method, self::ALLOW_VISITS);
            }
            if ($resource === 'orders') {
                return self::isRead($method)
                    ? $this->userOrders(rawurldecode($segments[0]), $query)
                    : self::methodNotAllowed($method, self::ALLOW_GET);
            }
        }
        return Response::error(404, sprintf('no such path: "%s"', self::truncate($path, 64)));
    }

    /** GET /users/{id}: op get. */
    private function user(string $segment): Response
    {
        try {
            $id = UserId::parse($segment);
        } catch (BadId $e) {
            return Response::error(400, 'bad id: ' . $e->getMessage());
        }
        try {
            $user = $this->layer->user($id);
        } catch (PDOException | DatabaseError $e) {
            return self::unavailable('GET /users/' . $id, $e);
        }
        if ($user === null) {
            return Response::error(404, sprintf('user %d not found', $id));
        }
        return Response::json(200, $user);
    }

    /**
     * GET /users?after=ID&limit=N: op list, a JSON array ([] when none); with an orders
     * parameter, op listorders (its after and limit read here first, as Go does).
     */
    private function list(string $query): Response
    {
        try {
            [$after, $limit] = ListQuery::parse($query);
        } catch (BadRequest $e) {
            return Response::error(400, $e->getMessage());
        }
        if (RelatedQuery::wantsOrders($query)) {
            return $this->listOrders($query, $after, $limit);
        }
        try {
            $users = $this->layer->users($after, $limit);
        } catch (PDOException | DatabaseError $e) {
            return self::unavailable('GET /users', $e);
        }
        return Response::json(200, $users);
    }

    /** POST /users {"name": "…"}: op insert, 201 with the new user and its Location. */
    private function insert(string $body): Response
    {
        try {
            $name = NewUser::parse($body);
        } catch (BadRequest $e) {
            return Response::error(400, 'bad body: ' . $e->getMessage());
        }
        try {
            $user = $this->layer->insert($name);
        } catch (PDOException | DatabaseError $e) {
            return self::unavailable('POST /users', $e);
        }
        return Response::json(201, $user, ['Location' => self::USERS . '/' . $user['id']]);
    }

    /** POST /users/{id}/visits: op update; a request body, if any, is ignored. */
    private function visit(string $segment): Response
    {
        try {
            $id = UserId::parse($segment);
        } catch (BadId $e) {
            return Response::error(400, 'bad id: ' . $e->getMessage());
        }
        try {
            $visits = $this->layer->visit($id);
        } catch (PDOException | DatabaseError $e) {
            return self::unavailable('POST /users/' . $id . '/visits', $e);
        }
        if ($visits === null) {
            return Response::error(404, sprintf('user %d not found', $id));
        }
        return Response::json(200, $visits);
    }

    /** GET /users/{id}/orders?limit=L&fetch=F: op orders, the user with their latest L orders. */
    private function userOrders(string $segment, string $query): Response
    {
        try {
            $id = UserId::parse($segment);
        } catch (BadId $e) {
            return Response::error(400, 'bad id: ' . $e->getMessage());
        }
        try {
            [$limit, $fetch] = RelatedQuery::parse($query, 'limit');
            RelatedQuery::offered($fetch, $this->fetch['orders']);
        } catch (BadRequest $e) {
            return Response::error(400, $e->getMessage());
        }
        try {
            // Not null: offered() refuses every form when the layer is not Related.
            $user = $this->related?->userOrders($id, $limit, $fetch);
        } catch (PDOException | DatabaseError $e) {
            return self::unavailable('GET /users/' . $id . '/orders', $e);
        }
        if ($user === null) {
            return Response::error(404, sprintf('user %d not found', $id));
        }
        return Response::json(200, $user);
    }

    /** GET /users?after=ID&limit=N&orders=P&fetch=F: op listorders, each user with their latest P orders. */
    private function listOrders(string $query, int $after, int $limit): Response
    {
        try {
            [$per, $fetch] = RelatedQuery::parse($query, 'orders');
            RelatedQuery::offered($fetch, $this->fetch['listorders']);
        } catch (BadRequest $e) {
            return Response::error(400, $e->getMessage());
        }
        try {
            $users = $this->related?->usersWithOrders($after, $limit, $per, $fetch) ?? [];
        } catch (PDOException | DatabaseError $e) {
            return self::unavailable('GET /users', $e);
        }
        return Response::json(200, $users);
    }

    /**
     * A database failure: 503. Illuminate's QueryException is a PDOException too;
     * Doctrine's exceptions arrive as DatabaseError. The message names the server and the
     * SQL, never the password; the client learns only the status.
     */
    private static function unavailable(string $request, PDOException | DatabaseError $e): Response
    {
        error_log(sprintf('dbbench: %s: database error: %s', $request, $e->getMessage()));
        return Response::error(503, 'database unavailable');
    }

    private static function isRead(string $method): bool
    {
        return $method === 'GET' || $method === 'HEAD';
    }

    private static function methodNotAllowed(string $method, string $allow): Response
    {
        $only = match ($allow) {
            self::ALLOW_GET => 'GET',
            self::ALLOW_USERS => 'GET or POST',
            default => $allow,
        };
        return Response::error(
            405,
            sprintf('method "%s" not allowed (only %s)', self::truncate($method, 32), $only),
            ['Allow' => $allow],
        );
    }

    /** Keeps echoed client input short: a 10 kB path is not worth sending back. */
    private static function truncate(string $s, int $n): string
    {
        return strlen($s) <= $n ? $s : substr($s, 0, $n) . '…';
    }
}
