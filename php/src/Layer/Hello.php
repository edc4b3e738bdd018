<?php

declare(strict_types=1);

namespace DbBench\Layer;

use DbBench\Response;
use LogicException;

/**
 * The baseline layer: GET /hello, answered by the HTTP stack alone (nginx, php-fpm, the
 * front controller), no database and no Illuminate. Every variant serves it (it is the
 * health check); the hello variant serves nothing else, as in Go, where the hello layer
 * is the server without a Finder.
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
        throw new LogicException('layer hello has no database: App routes no /users/ to it');
    }

    public function endRequest(): void
    {
    }
}
