<?php

declare(strict_types=1);

namespace DbBench;

use DbBench\Layer\Hello;
use DbBench\Layer\Layer;
use PDOException;

/**
 * The endpoint contract every dbbench target keeps (design.md), with the Go targets'
 * messages (go/server): GET /hello; GET /users/{id} unless the layer has no database (hello); 400 for a
 * bad id, 404 for an unknown id or path, 405 for another method, 503 when the database
 * fails. Errors are JSON and never carry internals: those go to the php-fpm log.
 */
final class App
{
    private const USERS = '/users/';
    private const ALLOW = ['Allow' => 'GET, HEAD'];

    /** Whether the layer has a database, so GET /users/{id} exists. */
    private readonly bool $users;

    public function __construct(private readonly Layer $layer)
    {
        $this->users = $layer::declaration()->db;
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

    /** @param string $uri the raw request target (REQUEST_URI), query string included */
    public function handle(string $method, string $uri): Response
    {
        $path = explode('?', $uri, 2)[0];
        if ($path === '/hello') {
            return self::isRead($method) ? Hello::response() : self::methodNotAllowed($method);
        }
        if ($this->users && str_starts_with($path, self::USERS)) {
            $segment = substr($path, strlen(self::USERS));
            if (!str_contains($segment, '/')) {
                // Decoded like Go's PathValue: /users/%34%32 is user 42, %27 a bad id.
                return self::isRead($method) ? $this->user(rawurldecode($segment)) : self::methodNotAllowed($method);
            }
        }
        return Response::error(404, sprintf('no such path: "%s"', self::truncate($path, 64)));
    }

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
            // Illuminate's QueryException is a PDOException too; Doctrine's exceptions
            // arrive as DatabaseError. The message names the server and the SQL, never
            // the password; the client learns only the status.
            error_log(sprintf('dbbench: GET /users/%d: database error: %s', $id, $e->getMessage()));
            return Response::error(503, 'database unavailable');
        }
        if ($user === null) {
            return Response::error(404, sprintf('user %d not found', $id));
        }
        return Response::json(200, $user);
    }

    private static function isRead(string $method): bool
    {
        return $method === 'GET' || $method === 'HEAD';
    }

    private static function methodNotAllowed(string $method): Response
    {
        return Response::error(
            405,
            sprintf('method "%s" not allowed (only GET)', self::truncate($method, 32)),
            self::ALLOW,
        );
    }

    /** Keeps echoed client input short: a 10 kB path is not worth sending back. */
    private static function truncate(string $s, int $n): string
    {
        return strlen($s) <= $n ? $s : substr($s, 0, $n) . '…';
    }
}
