<?php

declare(strict_types=1);

namespace DbBench\Model;

use Illuminate\Database\Eloquent\Model;

/**
 * A row of orders(id, user_id, total) (schema/orders.sql): one of a user's orders, total
 * in cents, read through User::orders(). The ids are the fixtures', never generated: the
 * ops only read orders.
 *
 * @property int $id
 * @property int $user_id
 * @property int $total
 */
final class Order extends Model
{
    protected $table = 'orders';
    public $timestamps = false;
    public $incrementing = false;
}
