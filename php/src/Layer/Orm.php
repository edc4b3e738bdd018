<?php

declare(strict_types=1);

namespace DbBench\Layer;

use DbBench\Config;
use DbBench\Illuminate;
use DbBench\Model\User;

/** Eloquent: User::find($id). */
final class Orm implements Layer
{
    public static function declaration(): Declaration
    {
        return Declaration::database(
            kind: 'orm',
            library: 'Eloquent',
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
        Illuminate::capsule($this->config)->bootEloquent();
        $user = User::find($id);
        if ($user === null) {
            return null;
        }
        return ['id' => $user->id, 'name' => $user->name];
    }
}
