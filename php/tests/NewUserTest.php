<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\BadRequest;
use DbBench\NewUser;
use PHPUnit\Framework\TestCase;

/** POST /users's body: the cases of go/server/ops_test.go, the same answers. */
final class NewUserTest extends TestCase
{
    /** @return array<string, array{string, string}> */
    public function valid(): array
    {
        $long = str_repeat('é', 64);
        return [
            'plain' => ['{"name":"Ada"}', 'Ada'],
            'spaces and accents' => [' { "name" : "Zoë Gray #42" } ', 'Zoë Gray #42'],
            'escaped pair' => ['{"name":"\u00e9\ud83d\ude00"}', 'é😀'],
            'emoji' => ['{"name":"😀"}', '😀'],
            '64 characters, 128 bytes' => ['{"name":"' . $long . '"}', $long],
            'the last of two' => ['{"name":"x","name":"y"}', 'y'],
            'an escaped backslash' => ['{"name":"\\\\ud800"}', '\ud800'],
        ];
    }

    /** @dataProvider valid */
    public function testValid(string $body, string $name): void
    {
        self::assertSame($name, NewUser::parse($body));
    }

    /** @return array<string, array{string, string}> */
    public function invalid(): array
    {
        $object = 'want a JSON object {"name": "…"}';
        return [
            '65 characters' => ['{"name":"' . str_repeat('é', 64) . 'x"}', 'name is longer than 64 characters'],
            'empty name' => ['{"name":""}', 'name is empty'],
            'null' => ['{"name":null}', 'name must be a string'],
            'number' => ['{"name":42}', 'name must be a string'],
            'array' => ['{"name":["x"]}', 'name must be a string'],
            'no name' => ['{}', 'name is required'],
            'capital' => ['{"Name":"x"}', 'unknown field "Name" (the body has name only)'],
            'more' => ['{"name":"x","admin":true}', 'unknown field "admin" (the body has name only)'],
            'empty body' => ['', $object],
            'json null' => ['null', $object],
            'json array' => ['[]', $object],
            'json string' => ['"x"', $object],
            'trailing' => ['{"name":"x"} {}', $object],
            'cut short' => ['{"name":"x"', $object],
            'invalid UTF-8' => ["{\"name\":\"\xff\"}", 'the body is not valid UTF-8'],
            'lone high surrogate' => ['{"name":"\ud800"}', 'lone UTF-16 surrogate'],
            'lone low surrogate' => ['{"name":"\udc00x"}', 'lone UTF-16 surrogate'],
            'high then not low' => ['{"name":"\ud800\u0041"}', 'lone UTF-16 surrogate'],
        ];
    }

    /** @dataProvider invalid */
    public function testInvalid(string $body, string $error): void
    {
        $this->expectException(BadRequest::class);
        $this->expectExceptionMessage($error);
        NewUser::parse($body);
    }
}
