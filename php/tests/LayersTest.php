<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\Config;
use DbBench\Layer\Builder;
use DbBench\Layer\Declaration;
use DbBench\Layer\Hello;
use DbBench\Layer\Orm;
use DbBench\Layer\Raw;
use DbBench\Layers;
use InvalidArgumentException;
use PHPUnit\Framework\TestCase;

/** Layer names, classes and what bin/describe.php prints. */
final class LayersTest extends TestCase
{
    /** Every layer class in src/Layer/, by name: adding a class adds a line here. */
    private const LAYERS = [
        'builder' => Builder::class,
        'hello' => Hello::class,
        'orm' => Orm::class,
        'raw' => Raw::class,
    ];

    public function testEveryLayerClassIsFound(): void
    {
        self::assertSame(self::LAYERS, Layers::all());
    }

    public function testClassOfFollowsTheNamingConvention(): void
    {
        foreach (self::LAYERS as $name => $class) {
            self::assertSame($class, Layers::classOf($name));
        }
    }

    /** @return array<string, array{string}> */
    public function notLayers(): array
    {
        return [
            'empty' => [''],
            'unknown' => ['gorm'],
            'capitalised' => ['Raw'],
            'upper case' => ['RAW'],
            'the interface' => ['layer'],
            'a helper that is no layer' => ['declaration'],
            'digit' => ['raw2'],
            'namespace' => ['raw\\x'],
            'path' => ['../raw'],
            'trailing newline' => ["raw\n"],
        ];
    }

    /** @dataProvider notLayers */
    public function testClassOfRefusesWhatIsNoLayerAndNamesTheLayers(string $name): void
    {
        $this->expectException(InvalidArgumentException::class);
        $this->expectExceptionMessage(sprintf(
            'DBBENCH_LAYER is "%s", want one of %s',
            $name,
            implode(', ', array_keys(self::LAYERS)),
        ));
        Layers::classOf($name);
    }

    /** Every variant a layer declares is one Config accepts, and builds that layer. */
    public function testEveryDeclaredVariantIsAValidConfig(): void
    {
        foreach (Layers::all() as $name => $class) {
            $d = $class::declaration();
            if (!$d->db) {
                self::assertSame($class, (new Config($name))->layerClass);
                continue;
            }
            foreach ($d->stmts as $stmt) {
                foreach ($d->conns as $conn) {
                    $c = new Config($name, $stmt, $conn, '127.0.0.1', 3306, 'dbbench', 'u');
                    self::assertSame($class, $c->layerClass);
                }
            }
        }
    }

    public function testDescribeScriptPrintsEveryLayerAsJson(): void
    {
        $cmd = [PHP_BINARY, '-n', dirname(__DIR__) . '/bin/describe.php'];
        $proc = proc_open($cmd, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($proc);
        $stdout = stream_get_contents($pipes[1]);
        $stderr = stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        self::assertSame(0, proc_close($proc), "describe.php failed: $stderr");
        self::assertSame('', $stderr);

        $got = json_decode((string) $stdout, true, 8, JSON_THROW_ON_ERROR);
        self::assertSame(['layers'], array_keys($got));
        self::assertSame(array_keys(self::LAYERS), array_column($got['layers'], 'name'));
        foreach ($got['layers'] as $layer) {
            $d = self::LAYERS[$layer['name']]::declaration();
            if (!$d->db) {
                self::assertSame(['name' => $layer['name'], 'db' => false], $layer);
                continue;
            }
            self::assertSame(
                ['name', 'db', 'kind', 'library', 'package', 'stmt', 'conn'],
                array_keys($layer),
            );
            self::assertTrue($layer['db']);
            self::assertContains($layer['kind'], Declaration::KINDS);
            self::assertSame([$d->library, $d->package], [$layer['library'], $layer['package']]);
            self::assertMatchesRegularExpression('/\A[a-z0-9][a-z0-9.+-]+\z/', $layer['package'], 'Debian package');
            self::assertSame([$d->stmts, $d->conns], [$layer['stmt'], $layer['conn']]);
        }
    }

    public function testDescribeOfTheKnownLayers(): void
    {
        $layers = array_column(Layers::describe()['layers'], null, 'name');
        self::assertSame(['name' => 'hello', 'db' => false], $layers['hello']);
        self::assertSame([
            'name' => 'raw', 'db' => true, 'kind' => 'raw', 'library' => 'PDO', 'package' => 'php8.2-mysql',
            'stmt' => ['prepare', 'interpolate'], 'conn' => ['persistent', 'per-request'],
        ], $layers['raw']);
        self::assertSame(
            ['builder', 'php-illuminate-database'],
            [$layers['builder']['kind'], $layers['builder']['package']],
        );
        self::assertSame(['orm', 'Eloquent'], [$layers['orm']['kind'], $layers['orm']['library']]);
    }
}
