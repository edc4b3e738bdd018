<?php

declare(strict_types=1);

namespace DbBench\Server;

/**
 * The HTTP/1.1 request parser of one connection (RFC 9112), pure: bytes go in with feed(),
 * requests come out of next() in the order they were sent, whatever the bytes' split into
 * reads. A body (Content-Length, at most Limits::maxBody bytes) is read and handed over
 * with its request (POST /users takes one); chunked bodies are refused (411).
 *
 * Everything the server cannot frame with certainty is refused with a RequestError, after
 * which the parser yields that error forever and the connection is closed: a request
 * smuggled behind an ambiguous one is never answered.
 */
final class RequestParser
{
    /** tchar of RFC 9110 5.6.2: what a method and a header name are made of. */
    private const TOKEN = "!#$%&'*+-.^_`|~0123456789"
        . 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

    /** Control characters a header value must not hold (HTAB is allowed). */
    private const VALUE_CTL = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0a\x0b\x0c\x0d\x0e\x0f"
        . "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f";

    /** What a request target must not hold: controls and space. */
    private const TARGET_CTL = self::VALUE_CTL . "\x09\x20";

    /** No method is longer; a longer token is noise, refused before the application. */
    private const MAX_METHOD = 32;

    /** Request-line bytes beside the target: method, two spaces, "HTTP/1.1", CRLF. */
    private const LINE_SLACK = self::MAX_METHOD + 12;

    private string $buffer = '';

    /** Bytes at the start of $buffer already searched for the end of the head. */
    private int $scanned = 0;

    /** A request whose body is still arriving. */
    private ?Request $pending = null;

    private int $bodyLeft = 0;

    /** What has arrived of the pending request's body. */
    private string $body = '';

    private ?RequestError $failed = null;

    public function __construct(private readonly Limits $limits)
    {
    }

    public function feed(string $bytes): void
    {
        if ($this->failed === null) {
            $this->buffer .= $bytes;
        }
    }

    /** Whether part of a request has arrived, and not all of it: the request timeout runs. */
    public function hasPartial(): bool
    {
        return $this->failed === null && ($this->pending !== null || $this->buffer !== '');
    }

    /** The next whole request, the error that ends the connection, or null: more bytes needed. */
    public function next(): Request|RequestError|null
    {
        if ($this->failed !== null) {
            return $this->failed;
        }
        if ($this->pending === null) {
            $request = $this->nextHead();
            if (!$request instanceof Request) {
                return $request;
            }
            $this->pending = $request;
        }
        $take = min($this->bodyLeft, strlen($this->buffer));
        if ($take > 0) {
            $this->body .= substr($this->buffer, 0, $take);
            $this->buffer = substr($this->buffer, $take);
            $this->bodyLeft -= $take;
        }
        if ($this->bodyLeft > 0) {
            return null;
        }
        $request = $this->body === '' ? $this->pending : $this->pending->withBody($this->body);
        $this->pending = null;
        $this->body = '';
        return $request;
    }

    private function nextHead(): Request|RequestError|null
    {
        // RFC 9112 2.2: empty lines before a request line are ignored.
        if ($this->buffer !== '' && ($this->buffer[0] === "\r" || $this->buffer[0] === "\n")) {
            $this->buffer = ltrim($this->buffer, "\r\n");
            $this->scanned = 0;
        }
        // The head ends at an empty line; bare LF line ends are accepted as RFC 9112 2.2 allows.
        $crlf = strpos($this->buffer, "\n\r\n", $this->scanned);
        $lf = strpos($this->buffer, "\n\n", $this->scanned);
        if ($crlf === false && $lf === false) {
            return $this->incomplete();
        }
        $end = $lf === false || ($crlf !== false && $crlf < $lf) ? $crlf : $lf;
        $head = substr($this->buffer, 0, $end);
        $this->buffer = substr($this->buffer, $end + ($end === $crlf ? 3 : 2));
        $this->scanned = 0;
        $parsed = $this->parseHead($head);
        if ($parsed instanceof RequestError) {
            return $this->fail($parsed);
        }
        [$request, $this->bodyLeft] = $parsed;
        return $request;
    }

    /** No end of head yet: refuse early what can already be refused, else wait. */
    private function incomplete(): ?RequestError
    {
        $length = strlen($this->buffer);
        $this->scanned = max(0, $length - 2);
        $lineEnd = strpos($this->buffer, "\n");
        if (($lineEnd === false ? $length : $lineEnd) > $this->limits->maxTarget + self::LINE_SLACK) {
            return $this->fail(self::targetTooLong($this->limits->maxTarget));
        }
        // The fields so far, and the empty line that will end them.
        if ($lineEnd !== false && $length - $lineEnd - 1 > $this->limits->maxHeaderSection + 2) {
            return $this->fail(self::headerTooLarge($this->limits->maxHeaderSection));
        }
        // Bytes that cannot begin a request line (TLS, binary noise): no need to wait for more.
        $method = strspn($this->buffer, self::TOKEN);
        if ($method < $length && ($this->buffer[$method] !== ' ' || $method === 0 || $method > self::MAX_METHOD)) {
            return $this->fail(new RequestError(400, 'bad request line'));
        }
        return null;
    }

    private function fail(RequestError $error): RequestError
    {
        $this->failed = $error;
        $this->buffer = '';
        $this->pending = null;
        $this->body = '';
        return $error;
    }

    /** @return array{Request, int}|RequestError the request and its body length */
    private function parseHead(string $head): array|RequestError
    {
        $lines = explode("\n", $head);
        $line = self::chop(array_shift($lines));
        $parts = explode(' ', $line);
        if (count($parts) !== 3) {
            return new RequestError(400, 'bad request line');
        }
        [$method, $target, $protocol] = $parts;
        if (strlen($target) > $this->limits->maxTarget) {
            return self::targetTooLong($this->limits->maxTarget);
        }
        // The field lines with their line ends: what follows the first LF, and the last LF
        // ($head ends before it).
        $firstLf = strpos($head, "\n");
        if ($firstLf !== false && strlen($head) - $firstLf > $this->limits->maxHeaderSection) {
            return self::headerTooLarge($this->limits->maxHeaderSection);
        }
        if ($method === '' || strlen($method) > self::MAX_METHOD || strspn($method, self::TOKEN) !== strlen($method)) {
            return new RequestError(400, 'bad method');
        }
        $version = self::version($protocol);
        if ($version instanceof RequestError) {
            return $version;
        }
        $target = self::target($method, $target);
        if ($target === null) {
            return new RequestError(400, 'bad request target');
        }
        $fields = self::fields($lines);
        if ($fields instanceof RequestError) {
            return $fields;
        }
        [$hosts, $connection, $length, $chunked] = $fields;
        if ($hosts > 1 || ($hosts === 0 && $version === '1.1')) {
            return new RequestError(400, 'an HTTP/1.1 request needs exactly one Host header');
        }
        if ($chunked && $length !== null) {
            return new RequestError(400, 'Content-Length and Transfer-Encoding together');
        }
        if ($chunked) {
            // Chunked bodies are not decoded; 411 tells the client what we do take.
            return new RequestError(411, 'Transfer-Encoding is not supported: send Content-Length');
        }
        $body = $length === null ? 0 : self::bodyLength($length, $this->limits->maxBody);
        if ($body instanceof RequestError) {
            return $body;
        }
        $tokens = $connection === '' ? [] : array_map('trim', explode(',', strtolower($connection)));
        $keepAlive = $version === '1.1' ? !in_array('close', $tokens, true) : in_array('keep-alive', $tokens, true);
        return [new Request($method, $target, $version, $keepAlive), $body];
    }

    /**
     * The header fields the server acts on: Host (counted), Connection (joined),
     * Content-Length (one value) and Transfer-Encoding (present or not).
     *
     * @param list<string> $lines
     * @return array{int, string, ?string, bool}|RequestError
     */
    private static function fields(array $lines): array|RequestError
    {
        $hosts = 0;
        $connection = '';
        $length = null;
        $chunked = false;
        foreach ($lines as $line) {
            $line = self::chop($line);
            $colon = strpos($line, ':');
            if ($colon === false) {
                return new RequestError(400, 'header line without a colon');
            }
            // A name is a token: this refuses folded lines and a space before the colon.
            $name = substr($line, 0, $colon);
            if ($name === '' || strspn($name, self::TOKEN) !== $colon) {
                return new RequestError(400, 'bad header name');
            }
            $value = trim(substr($line, $colon + 1), " \t");
            if (strcspn($value, self::VALUE_CTL) !== strlen($value)) {
                return new RequestError(400, 'control character in a header value');
            }
            switch (strtolower($name)) {
                case 'host':
                    $hosts++;
                    break;
                case 'connection':
                    $connection .= ($connection === '' ? '' : ',') . $value;
                    break;
                case 'content-length':
                    if ($length !== null && $length !== $value) {
                        return new RequestError(400, 'two different Content-Length values');
                    }
                    $length = $value;
                    break;
                case 'transfer-encoding':
                    $chunked = true;
                    break;
            }
        }
        return [$hosts, $connection, $length, $chunked];
    }

    private static function bodyLength(string $value, int $max): int|RequestError
    {
        if ($value === '' || !ctype_digit($value)) {
            return new RequestError(400, 'bad Content-Length');
        }
        $digits = ltrim($value, '0');
        if (strlen($digits) > 18 || (int) $digits > $max) {
            return new RequestError(413, sprintf('request body over %d bytes', $max));
        }
        return (int) $digits;
    }

    /** "1.0" or "1.1"; a later 1.x is served as 1.1 (RFC 9110 2.5), 2 and above are refused. */
    private static function version(string $protocol): string|RequestError
    {
        if ($protocol === 'HTTP/1.1' || $protocol === 'HTTP/1.0') {
            return substr($protocol, 5);
        }
        if (preg_match('#^HTTP/([0-9])\.[0-9]$#D', $protocol, $m) === 1 && $m[1] !== '0') {
            return $m[1] === '1' ? '1.1' : new RequestError(505, 'only HTTP/1.0 and HTTP/1.1 are served');
        }
        return new RequestError(400, 'bad protocol version');
    }

    /**
     * The target in origin form (RFC 9112 3.2): "/path?query" as sent; an absolute-form
     * "http://host/path" becomes "/path"; "*" only for OPTIONS. Null when it is none of these
     * or holds a control character. Bytes above 0x7f pass, as nginx and Go let them:
     * the application refuses them with a 400 or 404.
     */
    private static function target(string $method, string $target): ?string
    {
        if ($target === '' || strcspn($target, self::TARGET_CTL) !== strlen($target)) {
            return null;
        }
        if ($target[0] === '/') {
            return $target;
        }
        if ($target === '*') {
            return $method === 'OPTIONS' ? $target : null;
        }
        $scheme = strtolower(substr($target, 0, 8));
        $start = str_starts_with($scheme, 'http://') ? 7 : (str_starts_with($scheme, 'https://') ? 8 : 0);
        if ($start === 0) {
            return null;
        }
        $path = strcspn($target, '/?', $start);
        if ($path === 0) {
            return null; // no authority
        }
        $rest = substr($target, $start + $path);
        return $rest === '' || $rest[0] === '?' ? '/' . $rest : $rest;
    }

    private static function targetTooLong(int $max): RequestError
    {
        return new RequestError(414, sprintf('request target over %d bytes', $max));
    }

    private static function headerTooLarge(int $max): RequestError
    {
        return new RequestError(431, sprintf('header section over %d bytes', $max));
    }

    /** A line without its CR (lines are split at LF). */
    private static function chop(string $line): string
    {
        return str_ends_with($line, "\r") ? substr($line, 0, -1) : $line;
    }
}
