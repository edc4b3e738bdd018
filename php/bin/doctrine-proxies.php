<?php

/**
 * Generates layer doctrine's proxy classes ahead of time, as a production deployment
 * does (Doctrine's orm:generate-proxies), into src/Layer/Doctrine/Proxies/ or the
 * directory given. The layer never generates them at run time (AUTOGENERATE_NEVER), so
 * rerun this after changing an entity; tests/DoctrineTest.php fails until then.
 *
 *     php bin/doctrine-proxies.php [DIR]
 */

declare(strict_types=1);

require __DIR__ . '/../bootstrap.php';

use DbBench\Layer\Doctrine;
use DbBench\Library;
use Doctrine\DBAL\DriverManager;
use Doctrine\ORM\EntityManager;
use Symfony\Component\Cache\Adapter\ArrayAdapter;

try {
    $dir = $argv[1] ?? Doctrine::PROXY_DIR;
    if (!is_dir($dir)) {
        throw new RuntimeException("no directory $dir");
    }
    // The mapping and proxies do not depend on the cache or the server: nothing here
    // connects (the server version is given) or needs APCu.
    Library::load(ArrayAdapter::class, 'Symfony/Component/Cache/autoload.php', 'php-symfony-cache');
    $configuration = Doctrine::configuration(new ArrayAdapter());
    $connection = DriverManager::getConnection(
        ['driver' => 'pdo_mysql', 'serverVersion' => 'mariadb-10.11.0'],
        $configuration,
    );
    $em = new EntityManager($connection, $configuration);
    $metadata = $em->getMetadataFactory()->getAllMetadata();
    $n = $em->getProxyFactory()->generateProxyClasses($metadata, $dir);
    fwrite(STDERR, sprintf("doctrine-proxies: %d proxy classes in %s\n", $n, $dir));
} catch (Throwable $e) {
    fwrite(STDERR, sprintf("doctrine-proxies: %s: %s\n", $e::class, $e->getMessage()));
    exit(1);
}
