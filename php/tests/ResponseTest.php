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

    public function testRenderIsAWholeHttpMessage(): void
    {
        $r = Response::error(405, 'method not allowed', ['Allow' => 'GET, HEAD']);
        self::assertSame(
            "HTTP/1.1 405 Method Not Allowed\r\n"
            . "Content-Type: application/json\r\n"
            . "Content-Length: 30\r\n"
            . "Allow: GET, HEAD\r\n"
            . "Connection: close\r\n"
            . "\r\n"
            . '{"error":"method not allowed"}',
            $r->render(['Connection' => 'close']),
        );
    }

    public function testRenderWithoutBodyKeepsTheLengthOfTheBody(): void
    {
        // HEAD: the head a GET would get, Content-Length included, and nothing after it.
        $msg = Response::text(200, 'Hello, World!')->render([], false);
        self::assertSame(
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 13\r\n\r\n",
            $msg,
        );
    }

    public function testRenderKeepsAContentLengthTheResponseSets(): void
    {
        $msg = (new Response(200, 'text/plain', 'abc', ['content-length' => '3']))->render();
        self::assertSame(1, substr_count(strtolower($msg), 'content-length'));
        self::assertStringEndsWith("content-length: 3\r\n\r\nabc", $msg);
    }

    public function testRenderOfAnUnlistedStatusHasAnEmptyReason(): void
    {
        self::assertStringStartsWith("HTTP/1.1 299 \r\n", Response::text(299, '')->render());
    }
}
