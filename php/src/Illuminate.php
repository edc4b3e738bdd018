<?php

declare(strict_types=1);

namespace DbBench;

use Illuminate\Database\Capsule\Manager as Capsule;
use PDO;

/**
 * Illuminate's database component, set up standalone the way a production Laravel app
 * configures its `mysql` connection (config/database.php): utf8mb4, utf8mb4_unicode_ci,
 * strict mode; or its `pgsql` connection on PostgreSQL. On every new PDO object Laravel sends its connect-time statements
 * (see php/README.md), so under php-fpm every request pays them, persistent or not.
 */
final class Illuminate
{
    /** Debian's php-illuminate-database, used when Composer's vendor/ is absent. */
    private const DEBIAN_AUTOLOAD = 'Illuminate/Database/autoload.php';

    public static function capsule(Config $config): Capsule
    {
        self::load();
        $capsule = new Capsule();
        $capsule->addConnection(self::connection($config));
        return $capsule;
    }

    /**
     * The connection as config/database.php writes it: `mysql` (utf8mb4, strict) or, for
     * PostgreSQL, `pgsql` (utf8, the public schema; TLS off here, as on MySQL).
     *
     * @return array<string, mixed>
     */
    private static function connection(Config $config): array
    {
        $own = $config->postgres()
            ? ['driver' => 'pgsql', 'charset' => 'utf8', 'schema' => 'public', 'sslmode' => 'disable']
            : ['driver' => 'mysql', 'unix_socket' => '', 'charset' => 'utf8mb4',
                'collation' => 'utf8mb4_unicode_ci', 'strict' => true, 'engine' => null];
        return $own + [
            'host' => $config->host,
            'port' => $config->port,
            'database' => $config->database,
            'username' => $config->username,
            'password' => $config->password,
            'prefix' => '',
            'prefix_indexes' => true,
            'options' => $config->pdoOptions(),
        ];
    }

    /** Makes Illuminate's classes loadable: Composer's if installed, else Debian's. */
    private static function load(): void
    {
        if (class_exists(Capsule::class)) {
            return;
        }
        if (stream_resolve_include_path(self::DEBIAN_AUTOLOAD) === false) {
            throw new \RuntimeException(
                'Illuminate database not found: run `composer install` in php/ '
                . 'or install Debian\'s php-illuminate-database'
            );
        }
        require_once self::DEBIAN_AUTOLOAD;
    }
}
