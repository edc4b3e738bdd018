<?php

declare(strict_types=1);

namespace DbBench\Model;

use Illuminate\Database\Eloquent\Model;

/**
 * A row of users(id INT UNSIGNED PRIMARY KEY, name VARCHAR(64)).
 *
 * @property int $id
 * @property string $name
 */
final class User extends Model
{
    protected $table = 'users';
    public $timestamps = false;
}
