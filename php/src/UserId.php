<?php

declare(strict_types=1);

namespace DbBench;

/**
 * The id in /users/{id}: the canonical base-10 spelling of 1..4294967295, the column's
 * INT UNSIGNED range. Like the Go targets (go/server/id.go): no sign, no leading zero,
 * no spaces, so every user has exactly one URL and a 10 kB run of digits is rejected by
 * its length before anything converts it. Anything else is the client's mistake (400).
 */
final class UserId
{
    public const MAX = 4294967295;
    private const MAX_DIGITS = 10;

    /** @throws BadId naming what is wrong with $s */
    public static function parse(string $s): int
    {
        if ($s === '') {
            throw new BadId('id is empty');
        }
        if (strspn($s, '0123456789') !== strlen($s)) {
            throw new BadId('id must contain only the digits 0-9');
        }
        if ($s[0] === '0') {
            throw new BadId(strlen($s) === 1 ? 'id must be at least 1' : 'id must not have a leading zero');
        }
        if (strlen($s) > self::MAX_DIGITS || (int) $s > self::MAX) {
            throw new BadId('id must be at most ' . self::MAX);
        }
        return (int) $s;
    }
}
