<?php

declare(strict_types=1);

namespace DbBench;

use JsonException;
use stdClass;

/**
 * POST /users's body, read as the Go targets read it (go/server/newuser.go): exactly one
 * JSON object {"name": "…"}, name a string of 1..64 characters (code points, as MySQL
 * counts a VARCHAR(64)) of valid UTF-8, no other field. The content type is not checked.
 * A lone UTF-16 surrogate in a \u escape is refused (json_decode refuses it; Go checks
 * for it), so a name is stored as sent or not at all.
 */
final class NewUser
{
    public const MAX_NAME_CHARS = 64;
    private const NOT_OBJECT = 'want a JSON object {"name": "…"}';

    /** @throws BadRequest saying what is wrong with the body (the 400 adds "bad body: ") */
    public static function parse(string $body): string
    {
        if (!mb_check_encoding($body, 'UTF-8')) {
            throw new BadRequest('the body is not valid UTF-8');
        }
        try {
            $data = json_decode($body, false, 512, JSON_THROW_ON_ERROR);
        } catch (JsonException $e) {
            throw new BadRequest($e->getCode() === JSON_ERROR_UTF16
                ? 'the body is not valid UTF-8: a \u escape is a lone UTF-16 surrogate'
                : self::NOT_OBJECT);
        }
        if (!$data instanceof stdClass) {
            throw new BadRequest(self::NOT_OBJECT);
        }
        foreach (array_keys(get_object_vars($data)) as $field) {
            if ($field !== 'name') {
                $field = (string) $field;
                throw new BadRequest(sprintf(
                    'unknown field "%s" (the body has name only)',
                    strlen($field) <= 32 ? $field : substr($field, 0, 32) . '…',
                ));
            }
        }
        if (!property_exists($data, 'name')) {
            throw new BadRequest('name is required');
        }
        $name = $data->name;
        if (!is_string($name)) {
            throw new BadRequest('name must be a string');
        }
        $chars = mb_strlen($name, 'UTF-8');
        if ($chars === 0) {
            throw new BadRequest('name is empty');
        }
        if ($chars > self::MAX_NAME_CHARS) {
            throw new BadRequest(sprintf('name is longer than %d characters', self::MAX_NAME_CHARS));
        }
        return $name;
    }
}
