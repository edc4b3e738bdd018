<?php

declare(strict_types=1);

namespace DbBench\Server;

/**
 * One client connection of a worker: a non-blocking socket, its request parser, the
 * responses not yet written, and the times the worker's timeouts are measured from.
 */
final class Connection
{
    /** Bytes asked of one read: a few pipelined requests, or a large part of a body. */
    private const READ_SIZE = 65536;

    public readonly RequestParser $parser;

    /** Responses rendered and not yet taken by the kernel. */
    public string $out = '';

    /** Close once $out is written: the last response said "Connection: close". */
    public bool $closeAfterWrite = false;

    /** The last response refused a request: the client may still be sending. */
    public bool $refused = false;

    /** Our side is shut; what the client still sends is read and dropped (see linger()). */
    public bool $lingering = false;

    /** The last time bytes moved either way (idle, send and linger timeouts). */
    public float $lastActive;

    /** When the request now arriving began; 0 when no partial request is held. */
    public float $requestStarted = 0.0;

    /** @param resource $stream */
    public function __construct(private readonly mixed $stream, Limits $limits, float $now)
    {
        $this->parser = new RequestParser($limits);
        $this->lastActive = $now;
    }

    /** @return resource */
    public function stream(): mixed
    {
        return $this->stream;
    }

    /**
     * Reads what has arrived into the parser (or drops it while lingering). False when the
     * client has gone: end of stream or an error.
     */
    public function receive(float $now): bool
    {
        $data = @fread($this->stream, self::READ_SIZE);
        if ($data === false || $data === '') {
            return $data !== false && !feof($this->stream);
        }
        $this->lastActive = $now;
        if (!$this->lingering) {
            $this->parser->feed($data);
        }
        return true;
    }

    /**
     * Writes as much of $out as the kernel takes now. False when the client has gone
     * (the CLI ignores SIGPIPE, so a write to a closed connection fails instead of killing
     * the worker). A non-blocking write that takes nothing returns 0, not false.
     */
    public function flush(float $now): bool
    {
        $written = @fwrite($this->stream, $this->out);
        if ($written === false) {
            return false;
        }
        if ($written > 0) {
            $this->out = $written === strlen($this->out) ? '' : substr($this->out, $written);
            $this->lastActive = $now;
        }
        return true;
    }

    /**
     * After a refusal: send our FIN and keep reading until the client's, so that closing
     * with its unread bytes in our buffer does not reset the connection and destroy the
     * answer before the client reads it (the reason nginx has lingering_close).
     */
    public function linger(float $now): void
    {
        @stream_socket_shutdown($this->stream, STREAM_SHUT_WR);
        $this->lingering = true;
        $this->lastActive = $now;
    }

    /** Whether nothing is under way: no partial request, nothing to write. */
    public function isIdle(): bool
    {
        return $this->out === '' && !$this->lingering && !$this->parser->hasPartial();
    }

    public function close(): void
    {
        @fclose($this->stream);
    }
}
