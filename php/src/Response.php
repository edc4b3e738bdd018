<?php

declare(strict_types=1);

namespace DbBench;

/**
 * An HTTP response: built by App, written by the front controller (send(), under php-fpm)
 * or by the resident worker server (render(), src/Server).
 */
final class Response
{
    /** Reason phrases (RFC 9110) of the statuses App and the worker server answer with. */
    private const REASONS = [
        200 => 'OK',
        201 => 'Created',
        204 => 'No Content',
        400 => 'Bad Request',
        404 => 'Not Found',
        405 => 'Method Not Allowed',
        408 => 'Request Timeout',
        411 => 'Length Required',
        413 => 'Content Too Large',
        414 => 'URI Too Long',
        431 => 'Request Header Fields Too Large',
        500 => 'Internal Server Error',
        503 => 'Service Unavailable',
        505 => 'HTTP Version Not Supported',
    ];

    // Invalid UTF-8 (a raw byte echoed from a request line) becomes U+FFFD instead of an error.
    private const JSON_FLAGS = JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE
        | JSON_THROW_ON_ERROR;

    /** @param array<string, string> $headers extra headers, e.g. Allow */
    public function __construct(
        public readonly int $status,
        public readonly string $contentType,
        public readonly string $body,
        public readonly array $headers = [],
    ) {
    }

    public static function text(int $status, string $body): self
    {
        return new self($status, 'text/plain; charset=utf-8', $body);
    }

    /**
     * JSON with UTF-8 left as is (names like "Zoë Gray #42"), the same bytes Go's
     * encoding/json writes for these values: an object, or for a list (GET /users) an
     * array, [] when empty.
     *
     * @param array<int|string, mixed> $data
     * @param array<string, string> $headers
     */
    public static function json(int $status, array $data, array $headers = []): self
    {
        return new self($status, 'application/json', json_encode($data, self::JSON_FLAGS), $headers);
    }

    /** @param array<string, string> $headers */
    public static function error(int $status, string $message, array $headers = []): self
    {
        return self::json($status, ['error' => $message], $headers);
    }

    public function send(): void
    {
        http_response_code($this->status);
        header('Content-Type: ' . $this->contentType);
        header('Content-Length: ' . strlen($this->body));
        foreach ($this->headers as $name => $value) {
            header($name . ': ' . $value);
        }
        echo $this->body;
    }

    /**
     * The whole HTTP/1.1 message as bytes, for the worker server, which writes it to the
     * socket itself. The same headers send() gives php-fpm: Content-Type, then
     * Content-Length (the body's, unless the headers set one), then the headers; $extra
     * are the server's own (Connection, Date) and come last. Without $withBody (a HEAD
     * request) the head is the one a GET gets, Content-Length included.
     *
     * @param array<string, string> $extra
     */
    public function render(array $extra = [], bool $withBody = true): string
    {
        $head = 'HTTP/1.1 ' . $this->status . ' ' . (self::REASONS[$this->status] ?? '') . "\r\n"
            . 'Content-Type: ' . $this->contentType . "\r\n";
        $fields = '';
        $hasLength = false;
        foreach ([$this->headers, $extra] as $headers) {
            foreach ($headers as $name => $value) {
                $hasLength = $hasLength || strcasecmp((string) $name, 'Content-Length') === 0;
                $fields .= $name . ': ' . $value . "\r\n";
            }
        }
        if (!$hasLength) {
            $head .= 'Content-Length: ' . strlen($this->body) . "\r\n";
        }
        return $head . $fields . "\r\n" . ($withBody ? $this->body : '');
    }
}
