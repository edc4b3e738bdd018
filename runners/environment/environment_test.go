package environment

import (
	"strings"
	"testing"
)

func TestCollectNamesVersionsOfThisMachine(t *testing.T) {
	env := Collect("../..")
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
}

func TestMissingBinaryIsUnknown(t *testing.T) {
	env := Collect(t.TempDir())
	if env["dbbench-commit"] != "unknown" {
		t.Errorf("commit outside a repository = %q, want unknown", env["dbbench-commit"])
	}
}
