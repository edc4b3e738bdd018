package compare

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dbbench/runners/judge/compare/comparetest"
	"dbbench/runners/results"
)

func TestBaselineRoundTrip(t *testing.T) {
	runDir, baselines := t.TempDir(), t.TempDir()
	r := comparetest.Run(1)
	if err := results.WriteJSON(filepath.Join(runDir, "results.json"), r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runDir, "bench.txt"), []byte("BenchmarkX 1 2 req/s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, err := SaveBaseline(runDir, baselines, "before-pool")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "bench.txt")); err != nil || string(b) != "BenchmarkX 1 2 req/s\n" {
		t.Errorf("bench.txt copy: %q, %v", b, err)
	}
	got, err := LoadBaseline(baselines, "before-pool")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Variants) != len(r.Variants) || got.Variants[1].Reps[0].QPS != r.Variants[1].Reps[0].QPS ||
		len(got.Yardstick.Readings) != len(r.Yardstick.Readings) || len(got.Comparisons) != len(r.Comparisons) {
		t.Errorf("baseline read back differs from the run saved")
	}
	for _, bad := range []string{"../../x", "a/b", ".hidden", ""} {
		if _, err := SaveBaseline(runDir, baselines, bad); err == nil {
			t.Errorf("SaveBaseline(%q) succeeded, want a bad-name error", bad)
		}
	}
	if _, err := LoadBaseline(baselines, "missing"); err == nil || !strings.Contains(err.Error(), `baseline "missing" not found`) {
		t.Errorf("missing baseline: err = %v", err)
	}
}
