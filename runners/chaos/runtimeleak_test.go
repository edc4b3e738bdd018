package chaos

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dbbench/runners/measure/revision"
)

// Runtime leaks, planted where only the runtime's own count sees them soon: about 2 MB
// an hour per variant at the rates of a default soak (README.md, "Measured").
//   - Go: the test build of gotarget keeping 2 bytes of heap on every get request of
//     its layer (DBBENCH_LEAK heap:2), at the ~250 req/s a Go variant gets.
//   - PHP: a resident worker of the raw layer keeping a 24-byte string every 16th
//     request in each worker process (php/bin/worker.php, planted in a copy of php/).
const (
	runtimeLeakGo       = "heap:2"
	runtimeLeakPHP      = "random_bytes(24)" // kept every runtimeLeakPHPEvery-th request
	runtimeLeakPHPEvery = 16
)

// runtimeLeakRoot builds a root like the scenarios' (root) whose gotarget is the test
// build and whose php/bin/worker.php keeps runtimeLeakPHP every runtimeLeakPHPEvery-th
// request of layer phpLayer. Everything else links to root's files.
func runtimeLeakRoot(t *testing.T, phpLayer string) string {
	t.Helper()
	dir := newTmp(t)
	linkAll(t, root, dir, "bin", "php")
	linkAll(t, filepath.Join(root, "php"), filepath.Join(dir, "php"), "bin")
	linkAll(t, filepath.Join(root, "php", "bin"), filepath.Join(dir, "php", "bin"), "worker.php")
	linkAll(t, filepath.Join(root, "bin"), filepath.Join(dir, "bin"), "gotarget")
	build := revision.GoBuild(context.Background(), filepath.Join(root), filepath.Join(dir, "bin", "gotarget"), "leak")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(build.Args, " "), err, out)
	}
	worker, err := os.ReadFile(filepath.Join(root, "php", "bin", "worker.php"))
	if err != nil {
		t.Fatal(err)
	}
	// The handler the worker hands over, wrapped: the plant's only change.
	const handler = "static fn (string $method, string $target, string $body): Response => $app->handle($method, $target, $body),"
	if !strings.Contains(string(worker), handler) {
		t.Fatalf("php/bin/worker.php no longer hands over %q: the plant needs a new place", handler)
	}
	planted := fmt.Sprintf(`static function (string $method, string $target, string $body) use ($app): Response {
            static $kept = [], $n = 0;
            if (++$n %% %d === 0 && getenv('DBBENCH_LAYER') === %q) {
                $kept[] = %s; // PLANTED LEAK (chaos test)
            }
            return $app->handle($method, $target, $body);
        },`, runtimeLeakPHPEvery, phpLayer, runtimeLeakPHP)
	out := strings.Replace(string(worker), handler, planted, 1)
	if err := os.WriteFile(filepath.Join(dir, "php", "bin", "worker.php"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// linkAll makes dst and links into it every entry of src but the names left out.
func linkAll(t *testing.T, src, dst string, leaveOut ...string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if slices.Contains(leaveOut, e.Name()) {
			continue
		}
		target, err := filepath.EvalSymlinks(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dst, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}
