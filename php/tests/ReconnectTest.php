<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\DatabaseError;
use DbBench\Reconnect;
use PDOException;
use PHPUnit\Framework\TestCase;
use RuntimeException;

/**
 * The retry rule of resident layers, with the exceptions the drivers really throw (their
 * messages and codes as measured against MariaDB: php/README.md); the layers' use of it
 * against a real server is in ResidentDatabaseTest and runners/measure/target/php_test.go.
 */
final class ReconnectTest extends TestCase
{
    private string $log;
    private string|false $oldLog;

    protected function setUp(): void
    {
        $this->log = (string) tempnam(sys_get_temp_dir(), 'dbbench-reconnect-');
        $this->oldLog = ini_set('error_log', $this->log);
    }

    protected function tearDown(): void
    {
        ini_set('error_log', (string) $this->oldLog);
        unlink($this->log);
    }

    private static function pdoError(int $code, string $message): PDOException
    {
        $e = new PDOException(sprintf('SQLSTATE[HY000]: General error: %d %s', $code, $message));
        $e->errorInfo = ['HY000', $code, $message];
        return $e;
    }

    private static function goneAway(): PDOException
    {
        return self::pdoError(2006, 'MySQL server has gone away');
    }

    public function testLostMeansTheConnectionIsGone(): void
    {
        self::assertTrue(Reconnect::lost(self::goneAway()));
        self::assertTrue(Reconnect::lost(self::pdoError(2013, 'Lost connection to MySQL server during query')));
        // Doctrine DBAL's ConnectionLost wraps PDO's exception: found in the chain.
        self::assertTrue(Reconnect::lost(new RuntimeException('An exception occurred…', 0, self::goneAway())));
        self::assertTrue(Reconnect::lost(DatabaseError::from(self::goneAway())));

        $refused = new PDOException('SQLSTATE[HY000] [2002] Connection refused');
        $refused->errorInfo = ['HY000', 2002, 'Connection refused'];
        self::assertFalse(Reconnect::lost($refused), 'a connection that could not be opened was not lost');
        self::assertFalse(Reconnect::lost(self::pdoError(1045, 'Access denied')));
        self::assertFalse(Reconnect::lost(self::pdoError(1146, "Table 'dbbench.users' doesn't exist")));
        self::assertFalse(Reconnect::lost(new PDOException('no errorInfo at all')));
        self::assertFalse(Reconnect::lost(new RuntimeException('MySQL server has gone away')), 'codes, not words');
    }

    public function testLostOnPostgreSQL(): void
    {
        // What pdo_pgsql said here after pg_terminate_backend of an idle connection.
        self::assertTrue(Reconnect::lost(self::pdoError(7, "FATAL:  terminating connection due to administrator command\n"
            . "server closed the connection unexpectedly\n\tThis probably means the server terminated abnormally")));
        self::assertTrue(Reconnect::lost(self::pdoError(7, 'no connection to the server')));
        self::assertFalse(Reconnect::lost(self::pdoError(7, 'ERROR:  relation "users" does not exist')));
        self::assertFalse(Reconnect::lost(self::pdoError(7, 'FATAL:  password authentication failed for user "u"')));
        self::assertFalse(Reconnect::lost(self::pdoError(1045, 'no connection to the server')), 'words only with code 7');
    }

    /**
     * @param list<\Throwable|string> $outcomes what each call of the read does: throw, or return
     * @return array{mixed, int, int} the result (or the exception), reads, drops
     */
    private static function attempt(bool $reused, array $outcomes): array
    {
        $reads = 0;
        $drops = 0;
        $read = static function () use (&$reads, $outcomes): string {
            $outcome = $outcomes[$reads++];
            if ($outcome instanceof \Throwable) {
                throw $outcome;
            }
            return $outcome;
        };
        $drop = static function () use (&$drops): void {
            $drops++;
        };
        try {
            $result = Reconnect::once($reused, $read, $drop);
        } catch (\Throwable $e) {
            $result = $e;
        }
        return [$result, $reads, $drops];
    }

    public function testAReadThatWorksIsReadOnce(): void
    {
        self::assertSame(['row', 1, 0], self::attempt(true, ['row']));
        self::assertSame(['row', 1, 0], self::attempt(false, ['row']));
    }

    public function testALostReusedConnectionIsReadAgainOnANewOne(): void
    {
        self::assertSame(['row', 2, 1], self::attempt(true, [self::goneAway(), 'row']));
        self::assertStringContainsString(
            'dbbench: connection lost (SQLSTATE[HY000]: General error: 2006 MySQL server has gone away)',
            (string) file_get_contents($this->log),
        );
    }

    public function testOnlyOnce(): void
    {
        $second = self::goneAway();
        self::assertSame([$second, 2, 2], self::attempt(true, [self::goneAway(), $second, 'never']));
    }

    public function testANewConnectionThatFailsIsFinal(): void
    {
        $e = self::goneAway();
        self::assertSame([$e, 1, 1], self::attempt(false, [$e, 'never']));
        self::assertSame('', (string) file_get_contents($this->log));
    }

    public function testOtherErrorsAreFinal(): void
    {
        $e = self::pdoError(1146, "Table 'dbbench.users' doesn't exist");
        self::assertSame([$e, 1, 1], self::attempt(true, [$e, 'never']));
        $bug = new RuntimeException('a bug');
        self::assertSame([$bug, 1, 1], self::attempt(true, [$bug, 'never']));
    }
}
