<?php

declare(strict_types=1);

namespace DbBench;

/** A /users/{id} segment that is not a user id; the message says why (the 400 body). */
final class BadId extends \InvalidArgumentException
{
}
