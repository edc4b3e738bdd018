<?php

declare(strict_types=1);

namespace DbBench;

use PDOException;
use RuntimeException;
use Throwable;

/**
 * The database failed under a layer whose library does not throw PDOException (Doctrine
 * DBAL converts PDO's exceptions into its own). App answers 503 and logs the message,
 * which names the server and the SQL, never the password.
 */
final class DatabaseError extends RuntimeException
{
    /**
     * Wraps $cause. The message is that of the PDOException underneath when there is one
     * (`SQLSTATE[HY000] [2002] Connection refused`), so every layer logs a failure the
     * same way; the whole chain stays in getPrevious().
     */
    public static function from(Throwable $cause): self
    {
        for ($e = $cause; $e !== null; $e = $e->getPrevious()) {
            if ($e instanceof PDOException) {
                return new self($e->getMessage(), 0, $cause);
            }
        }
        return new self($cause->getMessage(), 0, $cause);
    }
}
