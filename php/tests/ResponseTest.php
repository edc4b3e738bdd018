<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\Response;
use PHPUnit\Framework\TestCase;

final class ResponseTest extends TestCase
{
    public function testUserJsonIsCompactWithIntegerIdAndRawUtf8(): void
    {
        $r = Response::json(200, ['id' => 42, 'name' => 'Zoë Gray #42']);
        self::assertSame(200, $r->status);
        self::assertSame('application/json', $r->contentType);
        // Byte for byte what Go's encoding/json writes: no spaces, ë not escaped.
        self::assertSame('{"id":42,"name":"Zoë Gray #42"}', $r->body);
    }

    public function testErrorIsJsonObjectWithErrorString(): void
    {
        $r = Response::error(405, 'method not allowed', ['Allow' => 'GET, HEAD']);
        self::assertSame(405, $r->status);
        self::assertSame('application/json', $r->contentType);
        self::assertSame(['error' => 'method not allowed'], json_decode($r->body, true, 2, JSON_THROW_ON_ERROR));
        self::assertSame(['Allow' => 'GET, HEAD'], $r->headers);
    }

    public function testText(): void
    {
        $r = Response::text(200, 'Hello, World!');
        self::assertSame('text/plain; charset=utf-8', $r->contentType);
        self::assertSame('Hello, World!', $r->body);
    }

    public function testInvalidUtf8IsReplacedNotAnError(): void
    {
        // Error messages echo the request path, whose bytes the client chose.
        $r = Response::error(404, "no such path: \"/\xff\"");
        self::assertSame(['error' => "no such path: \"/\u{FFFD}\""], json_decode($r->body, true));
    }
}
