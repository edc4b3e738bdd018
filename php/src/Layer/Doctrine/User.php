<?php

declare(strict_types=1);

namespace DbBench\Layer\Doctrine;

use Doctrine\ORM\Mapping as ORM;

/**
 * A row of users(id INT UNSIGNED PRIMARY KEY, name VARCHAR(64) NOT NULL), mapped with
 * PHP 8 attributes (Doctrine ORM 2.14's AttributeDriver). The ids are the fixtures',
 * not generated. Not final: Doctrine's proxies extend their entity
 * (Proxies/__CG__DbBenchLayerDoctrineUser.php, generated ahead of time).
 */
#[ORM\Entity]
#[ORM\Table(name: 'users')]
class User
{
    #[ORM\Id]
    #[ORM\Column(type: 'integer', options: ['unsigned' => true])]
    private int $id;

    #[ORM\Column(type: 'string', length: 64)]
    private string $name;

    public function __construct(int $id, string $name)
    {
        $this->id = $id;
        $this->name = $name;
    }

    public function getId(): int
    {
        return $this->id;
    }

    public function getName(): string
    {
        return $this->name;
    }
}
