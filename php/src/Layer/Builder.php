<?php

declare(strict_types=1);

namespace DbBench\Layer;

use DbBench\Config;
use DbBench\Illuminate;

/** Illuminate's query builder: table('users')->where('id', $id)->first(). */
final class Builder implements Layer
{
    public static function declaration(): Declaration
    {
        return Declaration::database(
            kind: 'builder',
            library: 'Illuminate query builder',
            package: 'php-illuminate-database',
            stmts: ['prepare', 'interpolate'],
            conns: ['persistent', 'per-request'],
        );
    }

    public function __construct(private readonly Config $config)
    {
    }

    public function user(int $id): ?array
    {
        $row = Illuminate::capsule($this->config)->getConnection()
            ->table('users')->where('id', $id)->first();
        if ($row === null) {
            return null;
        }
        return ['id' => (int) $row->id, 'name' => (string) $row->name];
    }
}
