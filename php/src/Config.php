<?php

declare(strict_types=1);

namespace DbBench;

use DbBench\Layer\Layer;
use InvalidArgumentException;
use PDO;

/**
 * One variant's settings, read from the environment the php-fpm pool sets (env[...] in
 * the generated php-fpm.conf) or the resident workers inherit. Connection values arrive
 * the same way, so no secret is ever part of the code or of a request.
 */
final class Config
{
    /**
     * Who runs the code. `fpm`: php-fpm builds the App for every request and everything
     * dies with it. `worker`: a resident PHP CLI worker builds the App once and serves
     * many requests with it, calling App::endRequest() after each.
     */
    public const SERVERS = ['fpm', 'worker'];

    /** PDO's drivers for the two protocols the suite's databases speak. */
    public const DRIVERS = ['mysql', 'pgsql'];

    /**
     * The layer's class, found by its name; the stmt and conn modes are checked against
     * what it declares.
     *
     * @var class-string<Layer>
     */
    public readonly string $layerClass;

    public function __construct(
        public readonly string $layer,
        public readonly string $stmt = 'none',
        public readonly string $conn = 'none',
        public readonly string $host = '',
        public readonly int $port = 3306,
        public readonly string $database = '',
        public readonly string $username = '',
        public readonly string $password = '',
        public readonly string $server = 'fpm',
        public readonly string $driver = 'mysql',
    ) {
        if (!in_array($driver, self::DRIVERS, true)) {
            throw new InvalidArgumentException(sprintf(
                'DBBENCH_DB_DRIVER is "%s", want one of %s',
                $driver,
                implode(', ', self::DRIVERS)
            ));
        }
        if (!in_array($server, self::SERVERS, true)) {
            throw new InvalidArgumentException(sprintf(
                'DBBENCH_SERVER is "%s", want one of %s',
                $server,
                implode(', ', self::SERVERS)
            ));
        }
        $this->layerClass = Layers::classOf($layer);
        $declared = $this->layerClass::declaration();
        if (!$declared->db) {
            return; // no database: stmt and conn are "none"
        }
        self::checkDeclared('DBBENCH_STMT', $stmt, $layer, $declared->stmts);
        self::checkDeclared('DBBENCH_CONN', $conn, $layer, $declared->conns);
        if ($host === '' || $database === '' || $username === '') {
            throw new InvalidArgumentException(
                'DBBENCH_DB_HOST, DBBENCH_DB_NAME and DBBENCH_DB_USER must be set for layer ' . $layer
            );
        }
        if ($port < 1 || $port > 65535) {
            throw new InvalidArgumentException(sprintf('DBBENCH_DB_PORT is %d, want 1..65535', $port));
        }
    }

    /** Reads the variant from the pool's environment. */
    public static function fromEnvironment(): self
    {
        $env = static fn (string $name, string $default = ''): string =>
            ($value = getenv($name)) === false ? $default : $value;
        $port = $env('DBBENCH_DB_PORT', '3306');
        if (!ctype_digit($port)) {
            throw new InvalidArgumentException(sprintf('DBBENCH_DB_PORT is "%s", want a port number', $port));
        }
        return new self(
            layer: $env('DBBENCH_LAYER'),
            stmt: $env('DBBENCH_STMT', 'none'),
            conn: $env('DBBENCH_CONN', 'none'),
            host: $env('DBBENCH_DB_HOST'),
            port: (int) $port,
            database: $env('DBBENCH_DB_NAME'),
            username: $env('DBBENCH_DB_USER'),
            password: $env('DBBENCH_DB_PASSWORD'),
            server: $env('DBBENCH_SERVER', 'fpm'),
            driver: $env('DBBENCH_DB_DRIVER', 'mysql'),
        );
    }

    /** Whether the App lives across requests (a resident worker), not just one (php-fpm). */
    public function resident(): bool
    {
        return $this->server === 'worker';
    }

    /**
     * Whether a layer keeps its connection after a request. Under php-fpm the layer dies
     * with the request either way and PDO's ATTR_PERSISTENT keeps the connection; a
     * resident layer keeps its own connection object.
     */
    public function keepsConnection(): bool
    {
        return $this->conn === 'persistent';
    }

    /** Whether the database speaks PostgreSQL's protocol (PDO's pgsql driver). */
    public function postgres(): bool
    {
        return $this->driver === 'pgsql';
    }

    /**
     * The PDO DSN: TCP, as across a network. MySQL's charset goes in the handshake;
     * PostgreSQL's client encoding is UTF8 by default, and TLS is off, as on MySQL.
     */
    public function pdoDsn(): string
    {
        if ($this->postgres()) {
            return sprintf('pgsql:host=%s;port=%d;dbname=%s;sslmode=disable', $this->host, $this->port, $this->database);
        }
        return sprintf('mysql:host=%s;port=%d;dbname=%s;charset=utf8mb4', $this->host, $this->port, $this->database);
    }

    /**
     * PDO options for the variant: stmt `interpolate` is client-side emulation (one text
     * query), `prepare` a server-side prepare per query. conn `persistent` under php-fpm
     * is ATTR_PERSISTENT: the fpm child keeps the connection and PDO pings it whenever a
     * request takes it up again. A resident worker never sets it: it keeps one plain PDO
     * object, which needs no ping.
     *
     * @return array<int, mixed>
     */
    public function pdoOptions(): array
    {
        return [
            PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION,
            PDO::ATTR_EMULATE_PREPARES => $this->stmt === 'interpolate',
            PDO::ATTR_PERSISTENT => $this->keepsConnection() && !$this->resident(),
        ];
    }

    /**
     * Refuses a statement or connection mode the layer does not declare.
     *
     * @param list<string> $declared
     */
    private static function checkDeclared(string $var, string $value, string $layer, array $declared): void
    {
        if (!in_array($value, $declared, true)) {
            throw new InvalidArgumentException(sprintf(
                '%s is "%s", layer %s has %s',
                $var,
                $value,
                $layer,
                implode(', ', $declared)
            ));
        }
    }
}
