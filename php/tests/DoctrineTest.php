<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\Layer\Doctrine;
use DbBench\Library;
use Doctrine\ORM\Proxy\ProxyFactory;
use PHPUnit\Framework\TestCase;
use RuntimeException;
use Symfony\Component\Cache\Adapter\ApcuAdapter;
use Symfony\Component\Cache\Adapter\ArrayAdapter;

/** Layer doctrine's production setup, without a database. */
final class DoctrineTest extends TestCase
{
    public static function setUpBeforeClass(): void
    {
        Library::load(ArrayAdapter::class, 'Symfony/Component/Cache/autoload.php', 'php-symfony-cache');
    }

    public function testProductionConfiguration(): void
    {
        $cache = new ArrayAdapter();
        $c = Doctrine::configuration($cache);
        self::assertSame(ProxyFactory::AUTOGENERATE_NEVER, $c->getAutoGenerateProxyClasses());
        self::assertSame(Doctrine::PROXY_DIR, $c->getProxyDir());
        self::assertSame($cache, $c->getMetadataCache());
        self::assertSame($cache, $c->getQueryCache());
        self::assertFalse($c->isSecondLevelCacheEnabled());
    }

    /** The layer runs with APCu, or refuses to start and says what to load. */
    public function testCacheIsApcuOrAClearError(): void
    {
        if (!ApcuAdapter::isSupported()) {
            $this->expectException(RuntimeException::class);
            $this->expectExceptionMessage('load extension=apcu (and set apc.enable_cli=1 for a CLI worker)');
        }
        self::assertInstanceOf(ApcuAdapter::class, Doctrine::cache());
    }

    /**
     * The committed proxies are what Doctrine generates now: auto-generation is off, so a
     * stale proxy would be used as it is. After changing the entity, run
     * `php bin/doctrine-proxies.php`.
     */
    public function testCommittedProxiesAreCurrent(): void
    {
        $dir = sys_get_temp_dir() . '/dbbench-proxies-' . bin2hex(random_bytes(6));
        mkdir($dir);
        try {
            $cmd = [PHP_BINARY, dirname(__DIR__) . '/bin/doctrine-proxies.php', $dir];
            $proc = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
            self::assertIsResource($proc);
            stream_get_contents($pipes[1]);
            $stderr = stream_get_contents($pipes[2]);
            fclose($pipes[1]);
            fclose($pipes[2]);
            self::assertSame(0, proc_close($proc), "doctrine-proxies.php failed: $stderr");
            $generated = self::files($dir);
            self::assertNotEmpty($generated);
            $stale = 'stale proxies: run php bin/doctrine-proxies.php';
            self::assertSame($generated, self::files(Doctrine::PROXY_DIR), $stale);
        } finally {
            array_map('unlink', glob("$dir/*") ?: []);
            rmdir($dir);
        }
    }

    /** @return array<string, string> file name => contents */
    private static function files(string $dir): array
    {
        $out = [];
        foreach (glob("$dir/*.php") ?: [] as $f) {
            $out[basename($f)] = (string) file_get_contents($f);
        }
        return $out;
    }
}
