<?php

declare(strict_types=1);

namespace DbBench\Tests;

use DbBench\Config;
use DbBench\Layer\Declaration;
use DbBench\Layer\Layer;
use DbBench\Layer\Raw;
use DbBench\Layer\Related;
use DbBench\Layers;
use InvalidArgumentException;
use PHPUnit\Framework\TestCase;

/** Layer names, classes and what bin/describe.php prints. */
final class LayersTest extends TestCase
{
    /**
     * Every class file of src/Layer/ that is a concrete Layer, by name, found here
     * independently of Layers (by loading each file): adding a layer adds no line here.
     *
     * @return array<string, class-string<Layer>>
     */
    private static function layerFiles(): array
    {
        $out = [];
        foreach (glob(dirname(__DIR__) . '/src/Layer/*.php') ?: [] as $file) {
            $class = 'DbBench\\Layer\\' . basename($file, '.php');
            if (class_exists($class) && is_subclass_of($class, Layer::class)) {
                $out[strtolower(basename($file, '.php'))] = $class;
            }
        }
        ksort($out);
        return $out;
    }

    public function testEveryLayerClassIsFound(): void
    {
        self::assertNotEmpty(self::layerFiles());
        self::assertArrayHasKey('hello', self::layerFiles());
        self::assertSame(self::layerFiles(), Layers::all());
    }

    public function testClassOfFollowsTheNamingConvention(): void
    {
        foreach (self::layerFiles() as $name => $class) {
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
            implode(', ', array_keys(self::layerFiles())),
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
        self::assertSame(array_keys(self::layerFiles()), array_column($got['layers'], 'name'));
        foreach ($got['layers'] as $layer) {
            $d = self::layerFiles()[$layer['name']]::declaration();
            if (!$d->db) {
                self::assertSame(['name' => $layer['name'], 'db' => false], $layer);
                continue;
            }
            // fetch, as gotarget --describe prints it: only for a layer that reads related rows.
            self::assertSame(
                array_merge(
                    ['name', 'db', 'kind', 'library', 'package', 'stmt', 'conn', 'protocols'],
                    $d->fetches() ? ['fetch'] : [],
                ),
                array_keys($layer),
            );
            if ($d->fetches()) {
                self::assertSame($d->fetch, $layer['fetch']);
                self::assertSame(['orders', 'listorders'], array_keys($layer['fetch']));
            }
            self::assertTrue($layer['db']);
            self::assertContains($layer['kind'], Declaration::KINDS);
            self::assertSame([$d->library, $d->package], [$layer['library'], $layer['package']]);
            self::assertMatchesRegularExpression('/\A[a-z0-9][a-z0-9.+-]+\z/', $layer['package'], 'Debian package');
            self::assertSame([$d->stmts, $d->conns], [$layer['stmt'], $layer['conn']]);
            self::assertSame($d->protocols, $layer['protocols']);
        }
    }

    /** A layer offers related-row forms only if it reads them: App offers a form only to a Related layer. */
    public function testLayersThatFetchAreRelated(): void
    {
        $fetching = [];
        foreach (self::layerFiles() as $name => $class) {
            if ($class::declaration()->fetches()) {
                self::assertTrue(is_subclass_of($class, Related::class), "$name declares fetch forms");
                $fetching[] = $name;
            }
        }
        self::assertSame(['builder', 'dbal', 'doctrine', 'orm', 'raw'], $fetching);
    }

    /** The baseline layers, whose declarations the matrix's facts were first copied from. */
    public function testDescribeOfTheBaselines(): void
    {
        $layers = array_column(Layers::describe()['layers'], null, 'name');
        self::assertSame(['name' => 'hello', 'db' => false], $layers['hello']);
        self::assertSame([
            'name' => 'raw', 'db' => true, 'kind' => 'raw', 'library' => 'PDO', 'package' => 'php8.2-mysql',
            'stmt' => ['prepare', 'interpolate'], 'conn' => ['persistent', 'per-request'],
            'protocols' => ['mysql', 'postgres'],
            'fetch' => ['orders' => ['join', 'eager'], 'listorders' => ['join', 'eager', 'lazy']],
        ], $layers['raw']);
        self::assertSame(Raw::class, Layers::classOf('raw'));
    }
}
