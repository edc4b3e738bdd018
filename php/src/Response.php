<?php

declare(strict_types=1);

namespace DbBench;

/** An HTTP response: built by App, written by the front controller. */
final class Response
{
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
     * encoding/json writes for these values.
     *
     * @param array<string, mixed> $data
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
}
