<?php

declare(strict_types=1);

namespace DbBench\Model;

use Illuminate\Database\Eloquent\Model;

/**
 * A row of users(id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, name VARCHAR(64),
 * visits INT UNSIGNED): Eloquent's defaults (incrementing integer key "id") fit it.
 *
 * @property int $id
 * @property string $name
 * @property int $visits
 */
final class User extends Model
{
    protected $table = 'users';
    public $timestamps = false;
}
