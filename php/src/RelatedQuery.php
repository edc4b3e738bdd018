<?php

declare(strict_types=1);

namespace DbBench;

/**
 * What GET /users/{id}/orders and GET /users?…&orders= read beyond the id or the list's
 * after and limit, read as the Go targets read it (go/server/orders.go: parseRelated,
 * offered, wantsOrders), with the same 400 texts: the count (limit for one user, orders
 * per user for a list), 1..100 in its canonical base-10 spelling, and fetch, the form
 * (join, eager or lazy), both required. As in ListQuery: names and values
 * percent-decoded, other parameters ignored, a parameter given twice refused. Unlike
 * ListQuery, and like Go's parseRelated, every pair is decoded, an ignored one included.
 */
final class RelatedQuery
{
    public const MAX_ORDERS = 100;
    private const MAX_DIGITS = 10;
    private const FETCH = 'fetch';

    /**
     * @param string $want the count's parameter: "limit" (one user) or "orders" (a list)
     * @return array{int, string} the count and the form
     * @throws BadRequest naming the parameter and what is wrong with it
     */
    public static function parse(string $query, string $want): array
    {
        $count = null;
        $fetch = null;
        foreach (explode('&', $query) as $pair) {
            [$name, $value] = array_pad(explode('=', $pair, 2), 2, '');
            $name = self::unescape($name);
            $value = self::unescape($value);
            if ($name !== $want && $name !== self::FETCH) {
                continue;
            }
            if (($name === self::FETCH ? $fetch : $count) !== null) {
                throw new BadRequest(sprintf('bad %s: %s is given more than once', $name, $name));
            }
            if ($name === self::FETCH) {
                $fetch = $value;
                continue;
            }
            $count = self::count($name, $value);
        }
        if ($count === null) {
            throw new BadRequest(sprintf('bad %s: %s is required (1..%d)', $want, $want, self::MAX_ORDERS));
        }
        if ($fetch === null) {
            throw new BadRequest('bad fetch: fetch is required (join, eager or lazy)');
        }
        return [$count, $fetch];
    }

    /**
     * Refuses a form the layer does not offer, naming those it does.
     *
     * @param list<string> $forms
     * @throws BadRequest
     */
    public static function offered(string $fetch, array $forms): void
    {
        if (in_array($fetch, $forms, true)) {
            return;
        }
        if ($forms === []) {
            throw new BadRequest('bad fetch: this layer reads no related rows');
        }
        throw new BadRequest(sprintf(
            'bad fetch: %s is not a form this layer offers (%s)',
            self::quote($fetch),
            implode(', ', $forms),
        ));
    }

    /** Whether a list's query string asks for each user's orders: a parameter named orders, as sent. */
    public static function wantsOrders(string $query): bool
    {
        foreach (explode('&', $query) as $pair) {
            if (explode('=', $pair, 2)[0] === 'orders') {
                return true;
            }
        }
        return false;
    }

    /** 1..MAX_ORDERS in its canonical spelling, as go/server's canonical reads it. */
    private static function count(string $name, string $s): int
    {
        $why = match (true) {
            $s === '' => 'is empty',
            strspn($s, '0123456789') !== strlen($s) => 'must contain only the digits 0-9',
            $s[0] === '0' && strlen($s) > 1 => 'must not have a leading zero',
            strlen($s) > self::MAX_DIGITS || (int) $s > self::MAX_ORDERS => 'must be at most ' . self::MAX_ORDERS,
            $s === '0' => 'must be at least 1',
            default => null,
        };
        if ($why !== null) {
            throw new BadRequest(sprintf('bad %s: %s %s', $name, $name, $why));
        }
        return (int) $s;
    }

    /** Percent-decoding as Go's url.QueryUnescape: "+" is a space, "%" needs two hex digits. */
    private static function unescape(string $s): string
    {
        if (preg_match('/%(?![0-9A-Fa-f]{2})/', $s) === 1) {
            throw new BadRequest('bad query string: a parameter is not percent-encoded properly');
        }
        return urldecode($s);
    }

    /**
     * The value as Go's %q writes it (strconv.Quote), so that an echoed fetch reads the
     * same: printable characters as they are, `"` and `\` backslashed, control characters
     * as \n, \t, \x1b…, other unprintable ones as \u00a0 or \U0001f000, each byte of
     * invalid UTF-8 as \xff.
     */
    public static function quote(string $s): string
    {
        preg_match_all(
            '/([\x00-\x7F]|[\xC2-\xDF][\x80-\xBF]|\xE0[\xA0-\xBF][\x80-\xBF]|[\xE1-\xEC\xEE\xEF][\x80-\xBF]{2}'
            . '|\xED[\x80-\x9F][\x80-\xBF]|\xF0[\x90-\xBF][\x80-\xBF]{2}|[\xF1-\xF3][\x80-\xBF]{3}'
            . '|\xF4[\x80-\x8F][\x80-\xBF]{2})|(.)/s',
            $s,
            $chars,
            PREG_SET_ORDER,
        );
        $out = '"';
        foreach ($chars as $m) {
            if (!isset($m[1]) || $m[1] === '') {
                $out .= sprintf('\x%02x', ord($m[2])); // a byte of invalid UTF-8
                continue;
            }
            $c = $m[1];
            $out .= match (true) {
                $c === '"' || $c === '\\' => '\\' . $c,
                $c === "\x07" => '\a',
                $c === "\x08" => '\b',
                $c === "\f" => '\f',
                $c === "\n" => '\n',
                $c === "\r" => '\r',
                $c === "\t" => '\t',
                $c === "\v" => '\v',
                strlen($c) === 1 => ($c < ' ' || $c === "\x7F") ? sprintf('\x%02x', ord($c)) : $c,
                // Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols.
                preg_match('/\A[\p{L}\p{M}\p{N}\p{P}\p{S}]\z/u', $c) === 1 => $c,
                default => self::escapeRune($c),
            };
        }
        return $out . '"';
    }

    /** \uXXXX (or \UXXXXXXXX past the BMP) of one valid multibyte UTF-8 character. */
    private static function escapeRune(string $c): string
    {
        $bytes = array_values(unpack('C*', $c));
        $r = match (count($bytes)) {
            2 => (($bytes[0] & 0x1F) << 6) | ($bytes[1] & 0x3F),
            3 => (($bytes[0] & 0x0F) << 12) | (($bytes[1] & 0x3F) << 6) | ($bytes[2] & 0x3F),
            default => (($bytes[0] & 0x07) << 18) | (($bytes[1] & 0x3F) << 12) | (($bytes[2] & 0x3F) << 6)
                | ($bytes[3] & 0x3F),
        };
        return $r < 0x10000 ? sprintf('\u%04x', $r) : sprintf('\U%08x', $r);
    }
}
