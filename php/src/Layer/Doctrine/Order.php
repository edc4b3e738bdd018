<?php

declare(strict_types=1);

namespace DbBench\Layer\Doctrine;

use Doctrine\ORM\Mapping as ORM;

/**
 * A row of orders(id INT UNSIGNED PRIMARY KEY, user_id INT UNSIGNED NOT NULL, total INT
 * UNSIGNED NOT NULL): one of a user's orders, total in cents (schema/orders.sql). The
 * owning side of the users-orders association: user_id is a ManyToOne to User, whose
 * orders collection maps it back. The ids are the fixtures' (no generated value): the
 * ops only read orders. Not final: Doctrine generates a proxy for every entity.
 */
#[ORM\Entity]
#[ORM\Table(name: 'orders')]
class Order
{
    #[ORM\Id]
    #[ORM\Column(type: 'integer', options: ['unsigned' => true])]
    private int $id;

    #[ORM\ManyToOne(targetEntity: User::class, inversedBy: 'orders')]
    #[ORM\JoinColumn(name: 'user_id', nullable: false)]
    private User $user;

    #[ORM\Column(type: 'integer', options: ['unsigned' => true])]
    private int $total;

    public function __construct(int $id, User $user, int $total)
    {
        $this->id = $id;
        $this->user = $user;
        $this->total = $total;
    }

    public function getId(): int
    {
        return $this->id;
    }

    public function getUser(): User
    {
        return $this->user;
    }

    public function getTotal(): int
    {
        return $this->total;
    }
}
