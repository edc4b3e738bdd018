<?php

declare(strict_types=1);

namespace DbBench\Layer;

use DbBench\Response;

/**
 * The baseline layer: GET /hello, answered by the HTTP stack alone (nginx, php-fpm, the
 * front controller), no database and no Illuminate. Every variant serves it (it is the
 * health check); the hello variant serves nothing else, as in Go, where the hello layer
 * is the server without a Finder.
 */
final class Hello
{
    public const BODY = 'Hello, World!';

    public static function response(): Response
    {
        return Response::text(200, self::BODY);
    }
}
