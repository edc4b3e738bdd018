<?php

declare(strict_types=1);

namespace DbBench\Layer;

use InvalidArgumentException;

/**
 * What a layer class says about itself: whether it uses the database, its kind (the axis
 * question 1 compares against raw), the library and the Debian package whose version a
 * run records, the stmt and conn modes it serves, and the forms it reads related rows in
 * (fetch, by op: Related). Config validates a variant against it, App refuses a form
 * it does not name, and bin/describe.php prints it, so the class is the one place that
 * knows.
 */
final class Declaration
{
    /**
     * The statement modes PHP knows. `prepared` (a statement kept across requests) is
     * not one yet: only a resident worker could keep it, and no layer does.
     */
    public const STMTS = ['prepare', 'interpolate'];
    public const CONNS = ['persistent', 'per-request'];
    public const KINDS = ['raw', 'builder', 'orm'];
    /** The wire protocols of the suite's databases (runners/matrix.yaml, dbs). */
    public const PROTOCOLS = ['mysql', 'postgres'];
    /** The forms of the related-rows ops (Related), in the order a layer lists them. */
    public const FETCHES = [Related::JOIN, Related::EAGER, Related::LAZY];
    /** The related-rows ops, as describe prints them (gotarget --describe's "fetch"). */
    public const FETCH_OPS = ['orders', 'listorders'];

    /**
     * @param list<string> $stmts
     * @param list<string> $conns
     * @param list<string> $protocols
     * @param array{orders: list<string>, listorders: list<string>} $fetch
     */
    private function __construct(
        public readonly bool $db,
        public readonly string $kind,
        public readonly string $library,
        public readonly string $package,
        public readonly array $stmts,
        public readonly array $conns,
        public readonly array $protocols,
        public readonly array $fetch,
    ) {
    }

    /** The baseline: no database, so no kind, library, stmt or conn. */
    public static function noDatabase(): self
    {
        return new self(false, '', '', '', [], [], [], ['orders' => [], 'listorders' => []]);
    }

    /**
     * A layer that reads users from the database.
     *
     * @param string $package the Debian package whose version the run records
     * @param list<string> $stmts in the order the variants are listed
     * @param list<string> $conns in the order the variants are listed
     * @param list<string> $protocols the databases' wire protocols the layer reads
     * @param array<string, list<string>> $fetch the forms of each related-rows op
     *        (orders, listorders) the layer offers; none unless it implements Related
     */
    public static function database(
        string $kind,
        string $library,
        string $package,
        array $stmts,
        array $conns,
        array $protocols = ['mysql'],
        array $fetch = [],
    ): self {
        if (!in_array($kind, self::KINDS, true)) {
            throw new InvalidArgumentException(sprintf('kind "%s", want one of %s', $kind, implode(', ', self::KINDS)));
        }
        if ($library === '' || $package === '') {
            throw new InvalidArgumentException('a database layer names its library and its Debian package');
        }
        self::checkModes('stmt', $stmts, self::STMTS);
        self::checkModes('conn', $conns, self::CONNS);
        self::checkModes('protocol', $protocols, self::PROTOCOLS);
        $unknown = array_diff(array_keys($fetch), self::FETCH_OPS);
        if ($unknown !== []) {
            throw new InvalidArgumentException(sprintf(
                'fetch op "%s", want %s',
                implode(', ', $unknown),
                implode(' or ', self::FETCH_OPS),
            ));
        }
        $forms = [];
        foreach (self::FETCH_OPS as $op) {
            $forms[$op] = $fetch[$op] ?? [];
            if ($forms[$op] !== []) {
                self::checkModes("$op fetch", $forms[$op], self::FETCHES);
            }
        }
        return new self(true, $kind, $library, $package, $stmts, $conns, $protocols, $forms);
    }

    /** Whether the layer reads related rows in any form: describe prints its "fetch" then. */
    public function fetches(): bool
    {
        return $this->fetch['orders'] !== [] || $this->fetch['listorders'] !== [];
    }

    /**
     * @param list<string> $modes
     * @param list<string> $known
     */
    private static function checkModes(string $what, array $modes, array $known): void
    {
        if ($modes === [] || !array_is_list($modes) || count(array_unique($modes)) !== count($modes)) {
            throw new InvalidArgumentException(sprintf('%s modes must be a non-empty list without repeats', $what));
        }
        foreach ($modes as $mode) {
            if (!in_array($mode, $known, true)) {
                throw new InvalidArgumentException(sprintf(
                    '%s mode "%s", PHP knows %s',
                    $what,
                    is_string($mode) ? $mode : get_debug_type($mode),
                    implode(', ', $known),
                ));
            }
        }
    }
}
