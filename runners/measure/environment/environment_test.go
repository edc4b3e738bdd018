package environment

import (
	"strconv"
	"strings"
	"testing"
)

func TestCollectNamesVersionsOfThisMachine(t *testing.T) {
	env := Collect("../../..")
	for _, k := range []string{"goos", "cpu", "cpu-count", "kernel", "virtualisation", "dbbench-go", "dbbench-commit"} {
		if env[k] == "" || env[k] == "unknown" {
			t.Errorf("%s = %q; want a value on this machine", k, env[k])
		}
	}
	for k, v := range env {
		if strings.ContainsAny(k, " \tABCDEFGHIJKLMNOPQRSTUVWXYZ") || strings.Contains(v, "\n") {
			t.Errorf("%s = %q is not a valid benchfmt config line", k, v)
		}
	}
}

func TestMissingBinaryIsUnknown(t *testing.T) {
	env := Collect(t.TempDir())
	if env["dbbench-commit"] != "unknown" {
		t.Errorf("commit outside a repository = %q, want unknown", env["dbbench-commit"])
	}
}

func TestVersionInAndCommand(t *testing.T) {
	if got := VersionIn("nginx version: nginx/1.22.1", `nginx/(\S+)`); got != "1.22.1" {
		t.Errorf("VersionIn = %q, want 1.22.1", got)
	}
	if got := VersionIn("no version here", `Ver (\S+)`); got != "" {
		t.Errorf("VersionIn without a match = %q, want empty", got)
	}
	if got := Command("dbbench-no-such-binary", "--version"); got != "" {
		t.Errorf("Command of a missing binary = %q, want empty", got)
	}
}

// MemTotalKiB is the environment's mem-total as a number, the one reading of it.
func TestMemTotalKiB(t *testing.T) {
	kib, ok := MemTotalKiB()
	if want := Collect("../../..")["mem-total"]; !ok || kib < 1<<10 || want != strconv.FormatInt(kib, 10)+" kB" {
		t.Errorf("MemTotalKiB = %d, %v; mem-total %q", kib, ok, want)
	}
}
