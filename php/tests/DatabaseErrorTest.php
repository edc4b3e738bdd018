<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\App;
use DbBench\DatabaseError;
use DbBench\Layer\Declaration;
use DbBench\Layer\Layer;
use PDOException;
use PHPUnit\Framework\TestCase;
use RuntimeException;

/** A library's own database exception, wrapped by its layer, is a 503 like PDO's. */
final class DatabaseErrorTest extends TestCase
{
    public function testWrappedFailureIs503WithTheCauseInTheLogOnly(): void
    {
        $cause = new RuntimeException('An exception occurred in the driver: SQLSTATE[HY000] [2002] Connection refused');
        $layer = new class ($cause) implements Layer {
            public function __construct(private readonly RuntimeException $cause)
            {
            }

            public static function declaration(): Declaration
            {
                return Declaration::database('raw', 'fake', 'none', ['prepare'], ['persistent']);
            }

            public function user(int $id): ?array
            {
                throw DatabaseError::from($this->cause);
            }

            public function users(int $after, int $limit): array
            {
                throw DatabaseError::from($this->cause);
            }

            public function insert(string $name): array
            {
                throw DatabaseError::from($this->cause);
            }

            public function visit(int $id): ?array
            {
                throw DatabaseError::from($this->cause);
            }

            public function endRequest(): void
            {
            }
        };
        $log = tempnam(sys_get_temp_dir(), 'dbbench-dberror-');
        $old = ini_set('error_log', $log);
        try {
            $r = (new App($layer))->handle('GET', '/users/7');
        } finally {
            ini_set('error_log', (string) $old);
        }
        $logged = (string) file_get_contents($log);
        unlink($log);

        self::assertSame(503, $r->status);
        self::assertSame('{"error":"database unavailable"}', $r->body);
        self::assertStringContainsString('GET /users/7: database error: ' . $cause->getMessage(), $logged);
        self::assertSame($cause, DatabaseError::from($cause)->getPrevious());

        $ops = [['GET', '/users?limit=5', ''], ['POST', '/users', '{"name":"x"}'], ['POST', '/users/7/visits', '']];
        foreach ($ops as [$m, $u, $b]) {
            $old = ini_set('error_log', '/dev/null');
            try {
                $r = (new App($layer))->handle($m, $u, $b);
            } finally {
                ini_set('error_log', (string) $old);
            }
            self::assertSame([503, '{"error":"database unavailable"}'], [$r->status, $r->body], "$m $u");
        }
    }

    /** Doctrine DBAL's chain: its exception, its driver's, then PDO's. */
    public function testMessageIsThePdoMessageUnderneath(): void
    {
        $pdo = new PDOException('SQLSTATE[HY000] [2002] Connection refused');
        $driver = new RuntimeException($pdo->getMessage(), 0, $pdo);
        $dbal = new RuntimeException('An exception occurred in the driver: ' . $pdo->getMessage(), 0, $driver);
        $e = DatabaseError::from($dbal);
        self::assertSame('SQLSTATE[HY000] [2002] Connection refused', $e->getMessage());
        self::assertSame($dbal, $e->getPrevious());
    }
}
