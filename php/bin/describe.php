<?php

/**
 * Prints the PHP layers as JSON on stdout, for the Go side to check runners/matrix.yaml
 * against the code: {"layers":[{"name":"hello","db":false},{"name":"raw","db":true,…},…]},
 * sorted by name, each database layer with its kind, library, Debian package, stmt and
 * conn modes (in the class's order), and the forms it reads related rows in, by op, as
 * gotarget --describe prints them: "fetch": {"orders": [...], "listorders": [...]}
 * (omitted when none). Found by scanning src/Layer/: nothing lists them.
 */

declare(strict_types=1);

require __DIR__ . '/../bootstrap.php';

use DbBench\Layers;

try {
    echo json_encode(Layers::describe(), JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR), "\n";
} catch (Throwable $e) {
    fwrite(STDERR, sprintf("describe: %s: %s\n", $e::class, $e->getMessage()));
    exit(1);
}
