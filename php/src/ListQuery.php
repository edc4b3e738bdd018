<?php

declare(strict_types=1);

namespace DbBench;

/**
 * GET /users's query string, read as the Go targets read it (go/server/list.go):
 * after (optional, default 0: from the first user) is an id, 0..4294967295; limit
 * (required) is 1..1000; both in their canonical base-10 spelling, as ids in paths
 * (digits only, no sign, no leading zero). Parameters are separated by "&", names and
 * values percent-decoded ("+" is a space, which no number holds); other parameters are
 * ignored, as GET /users/{id} ignores its query string; a parameter given twice is
 * refused rather than guessed at. Not $_GET: PHP's parser would take the last of two,
 * turn "a.b" into "a_b" and read "after[]" as an array.
 */
final class ListQuery
{
    public const MAX_LIMIT = 1000;
    private const MAX_DIGITS = 10;

    /**
     * @return array{int, int} after and limit
     * @throws BadRequest naming the parameter and what is wrong with it
     */
    public static function parse(string $query): array
    {
        $after = null;
        $limit = null;
        foreach (explode('&', $query) as $pair) {
            if ($pair === '') {
                continue;
            }
            [$name, $value] = array_pad(explode('=', $pair, 2), 2, '');
            $name = self::unescape($name);
            if ($name !== 'after' && $name !== 'limit') {
                continue;
            }
            $value = self::unescape($value);
            if ($name === 'after') {
                if ($after !== null) {
                    throw new BadRequest('bad after: after is given more than once');
                }
                $after = self::number('after', $value, UserId::MAX);
                continue;
            }
            if ($limit !== null) {
                throw new BadRequest('bad limit: limit is given more than once');
            }
            $limit = self::number('limit', $value, self::MAX_LIMIT);
            if ($limit === 0) {
                throw new BadRequest('bad limit: limit must be at least 1');
            }
        }
        if ($limit === null) {
            throw new BadRequest('bad limit: limit is required (1..1000)');
        }
        return [$after ?? 0, $limit];
    }

    /** Percent-decoding as Go's url.QueryUnescape: "+" is a space, "%" needs two hex digits. */
    private static function unescape(string $s): string
    {
        if (preg_match('/%(?![0-9A-Fa-f]{2})/', $s) === 1) {
            throw new BadRequest('bad query string: a parameter is not percent-encoded properly');
        }
        return urldecode($s);
    }

    /** A number in 0..$max in its canonical spelling ("0" allowed). */
    private static function number(string $name, string $s, int $max): int
    {
        $why = match (true) {
            $s === '' => 'is empty',
            strspn($s, '0123456789') !== strlen($s) => 'must contain only the digits 0-9',
            $s[0] === '0' && strlen($s) > 1 => 'must not have a leading zero',
            strlen($s) > self::MAX_DIGITS || (int) $s > $max => 'must be at most ' . $max,
            default => null,
        };
        if ($why !== null) {
            throw new BadRequest(sprintf('bad %s: %s %s', $name, $name, $why));
        }
        return (int) $s;
    }
}
