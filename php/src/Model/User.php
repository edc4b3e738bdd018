<?php

declare(strict_types=1);

namespace DbBench\Model;

use Illuminate\Database\Eloquent\Collection;
use Illuminate\Database\Eloquent\Model;
use Illuminate\Database\Eloquent\Relations\HasMany;

/**
 * A row of users(id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, name VARCHAR(64),
 * visits INT UNSIGNED): Eloquent's defaults (incrementing integer key "id") fit it.
 * Its orders are a hasMany (orders.user_id, Eloquent's default foreign key).
 *
 * @property int $id
 * @property string $name
 * @property int $visits
 * @property-read Collection<int, Order> $orders
 */
final class User extends Model
{
    protected $table = 'users';
    public $timestamps = false;

    /** The user's orders, latest (highest id) first: the relation orders itself, so its property does too. */
    public function orders(): HasMany
    {
        return $this->hasMany(Order::class)->orderByDesc('id');
    }
}
