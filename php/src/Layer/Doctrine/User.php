<?php

declare(strict_types=1);

namespace DbBench\Layer\Doctrine;

use Doctrine\Common\Collections\ArrayCollection;
use Doctrine\Common\Collections\Collection;
use Doctrine\ORM\Mapping as ORM;

/**
 * A row of users(id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, name VARCHAR(64) NOT NULL,
 * visits INT UNSIGNED NOT NULL DEFAULT 0), mapped with PHP 8 attributes (Doctrine ORM
 * 2.14's AttributeDriver). The id is the database's (IDENTITY: AUTO_INCREMENT, read back
 * with lastInsertId after the INSERT). Not final: Doctrine's proxies extend their entity
 * (Proxies/__CG__DbBenchLayerDoctrineUser.php, generated ahead of time).
 *
 * Its orders (Order.php) are the inverse side of Order's ManyToOne: no column here, so
 * loading a user reads the same columns as before; each user loaded gets an uninitialized
 * collection, which the first use loads (fetch LAZY, Doctrine's default), latest first.
 */
#[ORM\Entity]
#[ORM\Table(name: 'users')]
class User
{
    #[ORM\Id]
    #[ORM\GeneratedValue(strategy: 'IDENTITY')]
    #[ORM\Column(type: 'integer', options: ['unsigned' => true])]
    private ?int $id = null;

    #[ORM\Column(type: 'string', length: 64)]
    private string $name;

    #[ORM\Column(type: 'integer', options: ['unsigned' => true, 'default' => 0])]
    private int $visits = 0;

    /** @var Collection<int, Order> */
    #[ORM\OneToMany(mappedBy: 'user', targetEntity: Order::class)]
    #[ORM\OrderBy(['id' => 'DESC'])]
    private Collection $orders;

    public function __construct(string $name)
    {
        $this->name = $name;
        $this->orders = new ArrayCollection();
    }

    public function getId(): int
    {
        return (int) $this->id;
    }

    public function getName(): string
    {
        return $this->name;
    }

    public function getVisits(): int
    {
        return $this->visits;
    }

    /** @return Collection<int, Order> latest (highest id) first */
    public function getOrders(): Collection
    {
        return $this->orders;
    }

    /** One more visit; flush() writes it. */
    public function visit(): void
    {
        $this->visits++;
    }
}
