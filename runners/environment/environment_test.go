package environment

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestCollectNamesVersionsOfThisMachine(t *testing.T) {
	// The test binary has build info, as the Go target does.
	env := Collect("../..", os.Args[0])
	for _, k := range []string{"goos", "cpu", "cpu-count", "kernel", "dbbench-go", "dbbench-commit"} {
		if env[k] == "" || env[k] == "unknown" {
			t.Errorf("%s = %q; want a value on this machine", k, env[k])
		}
	}
	for k, v := range env {
		if strings.ContainsAny(k, " \tABCDEFGHIJKLMNOPQRSTUVWXYZ") || strings.Contains(v, "\n") {
			t.Errorf("%s = %q is not a valid benchfmt config line", k, v)
		}
	}
	if _, err := exec.LookPath("nginx"); err == nil && env["nginx"] == "unknown" {
		t.Errorf("nginx is installed but its version was not found")
	}
}

func TestMissingBinaryIsUnknown(t *testing.T) {
	env := Collect(t.TempDir(), filepath.Join(t.TempDir(), "no-such-binary"))
	if env["dbbench-commit"] != "unknown" {
		t.Errorf("commit outside a repository = %q, want unknown", env["dbbench-commit"])
	}
}
