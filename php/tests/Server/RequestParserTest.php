<?php

declare(strict_types=1);

namespace DbBench\Tests\Server;

use DbBench\Server\Limits;
use DbBench\Server\Request;
use DbBench\Server\RequestError;
use DbBench\Server\RequestParser;
use PHPUnit\Framework\TestCase;

final class RequestParserTest extends TestCase
{
    private const GET = "GET /users/42?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: t\r\n\r\n";

    /**
     * Feeds $bytes in pieces of $piece bytes and collects everything next() yields,
     * stopping after the first error (the parser repeats it forever).
     *
     * @return list<Request|RequestError>
     */
    private static function parse(string $bytes, int $piece = PHP_INT_MAX, ?Limits $limits = null): array
    {
        $parser = new RequestParser($limits ?? new Limits());
        $out = [];
        foreach ($piece >= strlen($bytes) ? [$bytes] : str_split($bytes, $piece) as $chunk) {
            $parser->feed($chunk);
            while (($item = $parser->next()) !== null) {
                $out[] = $item;
                if ($item instanceof RequestError) {
                    return $out;
                }
            }
        }
        return $out;
    }

    private static function one(string $bytes, ?Limits $limits = null): Request|RequestError
    {
        $out = self::parse($bytes, PHP_INT_MAX, $limits);
        self::assertCount(1, $out, 'want exactly one request or error');
        return $out[0];
    }

    private static function assertRefused(int $status, string $bytes, ?Limits $limits = null): void
    {
        $item = self::one($bytes, $limits);
        self::assertInstanceOf(RequestError::class, $item, 'want a refusal of ' . json_encode($bytes));
        self::assertSame($status, $item->status, $item->message);
    }

    public function testGet(): void
    {
        $r = self::one(self::GET);
        self::assertInstanceOf(Request::class, $r);
        self::assertSame('GET', $r->method);
        self::assertSame('/users/42?x=1', $r->target);
        self::assertSame('1.1', $r->version);
        self::assertTrue($r->keepAlive);
    }

    public function testByteByByteGivesTheSameRequests(): void
    {
        $three = self::GET . "HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n" . "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
        $whole = self::parse($three);
        self::assertSame(['GET', 'HEAD', 'GET'], array_map(static fn ($r) => $r->method, $whole));
        self::assertEquals($whole, self::parse($three, 1));
        self::assertEquals($whole, self::parse($three, 7));
    }

    public function testNothingBeforeTheEndOfTheHead(): void
    {
        $parser = new RequestParser(new Limits());
        $parser->feed(substr(self::GET, 0, -1));
        self::assertNull($parser->next());
        self::assertTrue($parser->hasPartial());
        $parser->feed("\n");
        self::assertInstanceOf(Request::class, $parser->next());
        self::assertFalse($parser->hasPartial());
        self::assertNull($parser->next());
    }

    public function testPipelinedRequestsComeOutInOrder(): void
    {
        $bytes = '';
        for ($i = 1; $i <= 50; $i++) {
            $bytes .= "GET /users/$i HTTP/1.1\r\nHost: x\r\n\r\n";
        }
        $targets = array_map(static fn (Request $r) => $r->target, self::parse($bytes, 64));
        self::assertSame(array_map(static fn (int $i) => "/users/$i", range(1, 50)), $targets);
    }

    public function testKeepAliveRules(): void
    {
        $cases = [
            "GET / HTTP/1.1\r\nHost: x\r\n\r\n" => true,
            "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" => false,
            "GET / HTTP/1.1\r\nHost: x\r\nconnection: Upgrade, CLOSE\r\n\r\n" => false,
            "GET / HTTP/1.0\r\n\r\n" => false,
            "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" => true,
            "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n" => true,
        ];
        foreach ($cases as $bytes => $keepAlive) {
            $r = self::one($bytes);
            self::assertInstanceOf(Request::class, $r);
            self::assertSame($keepAlive, $r->keepAlive, json_encode($bytes));
        }
    }

    public function testBareLineFeedsAndLeadingEmptyLines(): void
    {
        $r = self::one("\r\n\nGET /hello HTTP/1.1\nHost: x\n\n");
        self::assertInstanceOf(Request::class, $r);
        self::assertSame('/hello', $r->target);
    }

    public function testBodyIsTakenAndTheNextRequestFound(): void
    {
        $bytes = "POST /users HTTP/1.1\r\nHost: x\r\nContent-Length: 14\r\n\r\n{\"name\":\"Zoë\"}" . self::GET;
        $bytes = str_replace('Content-Length: 14', 'Content-Length: ' . strlen('{"name":"Zoë"}'), $bytes);
        foreach ([1, 5, PHP_INT_MAX] as $piece) {
            $out = self::parse($bytes, $piece);
            self::assertCount(2, $out);
            self::assertSame(['POST', 'GET'], [$out[0]->method, $out[1]->method]);
            self::assertSame('{"name":"Zoë"}', $out[0]->body);
            self::assertSame('', $out[1]->body);
            self::assertSame('/users/42?x=1', $out[1]->target);
        }
    }

    public function testRequestWaitsForItsWholeBody(): void
    {
        $parser = new RequestParser(new Limits());
        $parser->feed("PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nab");
        self::assertNull($parser->next());
        self::assertTrue($parser->hasPartial());
        $parser->feed('cd');
        $r = $parser->next();
        self::assertInstanceOf(Request::class, $r);
        self::assertSame('abcd', $r->body);
        self::assertFalse($parser->hasPartial());
    }

    public function testSameContentLengthTwiceIsOne(): void
    {
        self::assertInstanceOf(
            Request::class,
            self::one("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab"),
        );
    }

    public function testAbsoluteFormAndAsterisk(): void
    {
        self::assertSame('/users/1?a', self::one("GET http://h:8/users/1?a HTTP/1.1\r\nHost: h\r\n\r\n")->target);
        self::assertSame('/?a', self::one("GET HTTPS://h?a HTTP/1.1\r\nHost: h\r\n\r\n")->target);
        self::assertSame('/', self::one("GET http://h HTTP/1.1\r\nHost: h\r\n\r\n")->target);
        self::assertSame('*', self::one("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n")->target);
    }

    public function testMethodsAreTokensPassedAsSent(): void
    {
        // The application answers 405 to these; the parser's job is only to frame them.
        foreach (['POST', 'DELETE', 'BREW', 'get', 'M-SEARCH'] as $method) {
            self::assertSame($method, self::one("$method /users/1 HTTP/1.1\r\nHost: x\r\n\r\n")->method);
        }
    }

    public function testRawNonAsciiTargetPasses(): void
    {
        // As nginx and Go let it: App then answers 400 or 404.
        self::assertSame("/users/\u{221E}", self::one("GET /users/\u{221E} HTTP/1.1\r\nHost: x\r\n\r\n")->target);
    }

    public function testMalformedRequests(): void
    {
        $cases = [
            'HTTP/0.9' => "GET /\r\n\r\n",
            'no version' => "GET /users/1\r\nHost: x\r\n\r\n",
            'two spaces' => "GET  / HTTP/1.1\r\nHost: x\r\n\r\n",
            'NUL in the method' => "G\x00T /users/1 HTTP/1.1\r\nHost: x\r\n\r\n",
            'NUL in the path' => "GET /users/1\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
            'tab in the path' => "GET /a\tb HTTP/1.1\r\nHost: x\r\n\r\n",
            'DEL in the path' => "GET /a\x7f HTTP/1.1\r\nHost: x\r\n\r\n",
            'relative target' => "GET users/1 HTTP/1.1\r\nHost: x\r\n\r\n",
            'asterisk for GET' => "GET * HTTP/1.1\r\nHost: x\r\n\r\n",
            'no authority' => "GET http:///x HTTP/1.1\r\nHost: x\r\n\r\n",
            'method with a slash' => "GE/T / HTTP/1.1\r\nHost: x\r\n\r\n",
            'overlong method' => str_repeat('A', 33) . " / HTTP/1.1\r\nHost: x\r\n\r\n",
            'lower-case protocol' => "GET / http/1.1\r\nHost: x\r\n\r\n",
            'HTTP/1' => "GET / HTTP/1\r\nHost: x\r\n\r\n",
            'HTTP/0.9 version' => "GET / HTTP/0.9\r\nHost: x\r\n\r\n",
            'no Host' => "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n",
            'two Hosts' => "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
            'header without colon' => "GET / HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n",
            'space before colon' => "GET / HTTP/1.1\r\nHost : x\r\n\r\n",
            'folded header' => "GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  2\r\n\r\n",
            'empty name' => "GET / HTTP/1.1\r\nHost: x\r\n: v\r\n\r\n",
            'CR in a value' => "GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r2\r\n\r\n",
            'NUL in a value' => "GET / HTTP/1.1\r\nHost: x\r\nX-A: \x00\r\n\r\n",
            'negative length' => "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
            'length with a sign' => "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +1\r\n\r\na",
            'length list' => "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1, 1\r\n\r\na",
            'empty length' => "POST / HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n",
            'two lengths' => "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
            'length and chunked' =>
                "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\nab",
            'TLS hello' => "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
            'binary noise' => "\x00\x01\x02",
        ];
        foreach ($cases as $name => $bytes) {
            $item = self::one($bytes);
            self::assertInstanceOf(RequestError::class, $item, $name);
            self::assertSame(400, $item->status, "$name: $item->message");
        }
    }

    public function testRefusalsWithTheirOwnStatus(): void
    {
        self::assertRefused(505, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"); // the HTTP/2 preface
        self::assertRefused(505, "GET / HTTP/3.0\r\nHost: x\r\n\r\n");
        self::assertRefused(411, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
        self::assertRefused(413, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n");
        self::assertRefused(413, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1048577\r\n\r\n");
    }

    public function testBodyUpToTheLimitIsTaken(): void
    {
        $limits = new Limits(maxBody: 10);
        $bytes = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0010\r\n\r\n0123456789" . self::GET;
        $out = self::parse($bytes, 3, $limits);
        self::assertCount(2, $out);
        self::assertSame('0123456789', $out[0]->body);
        self::assertRefused(413, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n", $limits);
    }

    public function testTargetLimit(): void
    {
        $limits = new Limits();
        // The contract's overlong id (runners/measure/target: 10240 nines) reaches the application,
        // which answers 400, as behind nginx, whose request line may have 16 kB.
        $id = '/users/' . str_repeat('9', 10240);
        self::assertSame($id, self::one("GET $id HTTP/1.1\r\nHost: x\r\n\r\n")->target);
        $fits = '/users/' . str_repeat('1', 16384 - 7);
        self::assertSame($fits, self::one("GET $fits HTTP/1.1\r\nHost: x\r\n\r\n")->target);
        self::assertRefused(414, "GET {$fits}1 HTTP/1.1\r\nHost: x\r\n\r\n");
        // Refused before the head ends: a 70 kB target is not buffered whole.
        self::assertSame(414, self::one('GET /' . str_repeat('1', 70000) . " HTTP/1.1\r\nHost")->status);
        $out = self::parse('GET /users/' . str_repeat('1', 70000), 1000, $limits);
        self::assertCount(1, $out);
        self::assertSame(414, $out[0]->status);
    }

    public function testHeaderSectionLimit(): void
    {
        // The limit counts the field lines with their line ends, not the request line.
        $line = 'GET /' . str_repeat('1', 10000) . " HTTP/1.1\r\n";
        $fields = "Host: x\r\nX-Big: ";
        $fields .= str_repeat('a', 16384 - strlen($fields) - 2) . "\r\n";
        self::assertSame(16384, strlen($fields));
        self::assertInstanceOf(Request::class, self::one($line . $fields . "\r\n"));
        self::assertInstanceOf(Request::class, self::parse($line . $fields . "\r\n", 1)[0]);
        $over = substr($fields, 0, -2) . "a\r\n\r\n";
        self::assertRefused(431, $line . $over);
        self::assertSame(431, self::parse($line . $over, 1)[0]->status);
        // Without an end in sight: refused once the bytes pass the limit, not at the end.
        $many = "GET / HTTP/1.1\r\nHost: x\r\n" . str_repeat("X-H: 1\r\n", 150000);
        $out = self::parse($many, 4096);
        self::assertCount(1, $out);
        self::assertSame(431, $out[0]->status);
    }

    public function testAfterAnErrorOnlyTheError(): void
    {
        $parser = new RequestParser(new Limits());
        $parser->feed("GET / HTTP/1.1\r\nBroken\r\n\r\n" . self::GET);
        $error = $parser->next();
        self::assertInstanceOf(RequestError::class, $error);
        $parser->feed(self::GET);
        self::assertSame($error, $parser->next());
        self::assertFalse($parser->hasPartial());
    }

    public function testErrorsCarryNoClientBytes(): void
    {
        $item = self::one("GET /<script> HTTP/1.1\r\nHost: x\r\nEvil<script>\r\n\r\n");
        self::assertInstanceOf(RequestError::class, $item);
        self::assertStringNotContainsString('script', $item->response()->body);
        self::assertSame(['error' => 'header line without a colon'], json_decode($item->response()->body, true));
    }
}
