<?php

declare(strict_types=1);

namespace DbBench\Layer;

use DbBench\Response;
use LogicException;

/**
 * The baseline layer: GET /hello, answered by the HTTP stack alone (nginx, php-fpm, the
 * front controller), no database and no Illuminate. Every variant serves it (it is the
 * health check); the hello variant serves nothing else, as in Go, where the hello layer
 * is the server without a Store.
 */
final class Hello implements Layer
{
    public const BODY = 'Hello, World!';

    public static function declaration(): Declaration
    {
        return Declaration::noDatabase();
    }

    public static function response(): Response
    {
        return Response::text(200, self::BODY);
    }

    public function user(int $id): ?array
    {
        throw self::noDatabase();
    }

    public function users(int $after, int $limit): array
    {
        throw self::noDatabase();
    }

    public function insert(string $name): array
    {
        throw self::noDatabase();
    }

    public function visit(int $id): ?array
    {
        throw self::noDatabase();
    }

    private static function noDatabase(): LogicException
    {
        return new LogicException('layer hello has no database: App routes no /users to it');
    }

    public function endRequest(): void
    {
    }
}
