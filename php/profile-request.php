<?php

/**
 * php-fpm's auto_prepend_file, only when the runner profiles a variant (conf/php.ini.tmpl
 * with Profile, which also loads the excimer extension; measured runs have neither):
 * starts a sampling profiler before anything of the request runs, the front
 * controller's autoloading and the app's set-up included, and at its end appends the
 * request's stacks to DBBENCH_PROFILE_DIR/<pid>.collapsed (DbBench\Profile).
 */

declare(strict_types=1);

require_once __DIR__ . '/src/Profile.php';

(static function (): void {
    // Timed: the runner joins the samples with perf's CPU samples (src/Profile.php).
    $profile = DbBench\Profile::fromEnvironment(timed: true);
    if ($profile === null) {
        return;
    }
    $profile->start();
    // The first shutdown function: it runs once the front controller has sent the
    // response and the request's objects (a per-request connection) are gone.
    register_shutdown_function(static function () use ($profile): void {
        $profile->stop();
        $profile->append();
    });
})();
