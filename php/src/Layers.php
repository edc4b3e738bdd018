<?php

declare(strict_types=1);

namespace DbBench;

use DbBench\Layer\Layer;
use InvalidArgumentException;
use ReflectionClass;
use UnexpectedValueException;

/**
 * Layer names and classes: layer `foo` is the class DbBench\Layer\Foo. A request resolves
 * just its own class by that name (one autoload, no directory scan); only describe()
 * and an error message scan src/Layer/.
 */
final class Layers
{
    private const NAMESPACE = 'DbBench\\Layer\\';
    private const DIR = __DIR__ . '/Layer';

    /**
     * The class of layer $name.
     *
     * @return class-string<Layer>
     * @throws InvalidArgumentException naming the known layers
     */
    public static function classOf(string $name): string
    {
        $class = self::NAMESPACE . ucfirst($name);
        if (
            preg_match('/\A[a-z]+\z/', $name) !== 1
            || !is_subclass_of($class, Layer::class)
            || !(new ReflectionClass($class))->isInstantiable()
        ) {
            throw new InvalidArgumentException(sprintf(
                'DBBENCH_LAYER is "%s", want one of %s',
                $name,
                implode(', ', array_keys(self::all())),
            ));
        }
        return $class;
    }

    /**
     * Every layer class in src/Layer/*.php by name, sorted: the concrete classes that
     * implement Layer (the interface itself and other helpers there are skipped).
     *
     * @return array<string, class-string<Layer>>
     * @throws UnexpectedValueException for a layer class whose name breaks the convention
     */
    public static function all(): array
    {
        $layers = [];
        foreach (glob(self::DIR . '/*.php') ?: [] as $file) {
            $short = basename($file, '.php');
            $class = self::NAMESPACE . $short;
            if (!class_exists($class) && !interface_exists($class)) {
                throw new UnexpectedValueException(sprintf('%s does not declare %s', $file, $class));
            }
            $r = new ReflectionClass($class);
            if (!$r->isInstantiable() || !$r->implementsInterface(Layer::class)) {
                continue;
            }
            $name = strtolower($short);
            if (ucfirst($name) !== $short) {
                throw new UnexpectedValueException(sprintf(
                    'layer class %s: a layer name is lowercase letters, its class the name with a capital first',
                    $class,
                ));
            }
            $layers[$name] = $class;
        }
        ksort($layers, SORT_STRING);
        return $layers;
    }

    /**
     * What bin/describe.php prints: every layer, sorted by name, with its declaration.
     *
     * @return array{layers: list<array<string, mixed>>}
     */
    public static function describe(): array
    {
        $out = [];
        foreach (self::all() as $name => $class) {
            $d = $class::declaration();
            $layer = ['name' => $name, 'db' => $d->db];
            if ($d->db) {
                $layer += [
                    'kind' => $d->kind,
                    'library' => $d->library,
                    'package' => $d->package,
                    'stmt' => $d->stmts,
                    'conn' => $d->conns,
                    'protocols' => $d->protocols,
                ];
                if ($d->fetches()) {
                    $layer['fetch'] = $d->fetch; // as gotarget --describe: omitted when none
                }
            }
            $out[] = $layer;
        }
        return ['layers' => $out];
    }
}
