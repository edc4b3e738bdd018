// Package golden checks a rendered text against a file committed beside the test, the
// way golang.org/x/perf's cmd/benchstat checks its output: a failure prints the lines
// that differ, and the test's -update flag rewrites the file.
//
// Each test package with golden files declares its own flag, since go test hands -update
// to every package it runs and a package without the flag fails on it:
//
//	var update = flag.Bool("update", false, "rewrite the golden files")
//
// and the whole tree's golden files are rewritten by `make golden` (README, "Testing").
package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Check compares got with the file at path; with update it rewrites the file instead.
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s", path)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run '%s' -update writes it)", err, t.Name())
	}
	if bytes.Equal(want, got) {
		return
	}
	d := Diff(string(want), string(got))
	if d == "" {
		d = "(only the newline at the end differs)\n"
	}
	t.Errorf("%s differs from what the code renders now (- golden, + now); "+
		"if the change is meant, go test -run '%s' -update rewrites it:\n%s", path, t.Name(), d)
}
