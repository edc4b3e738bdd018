<?php

declare(strict_types=1);

namespace DbBench;

/**
 * A query string or request body that is not what the endpoint takes; the message is the
 * 400 body's error, the same words the Go targets use (go/server/list.go, newuser.go).
 */
final class BadRequest extends \InvalidArgumentException
{
}
