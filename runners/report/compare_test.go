package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

func verdicts(c *Comparison, variant string) map[string]stats.Verdict {
	out := map[string]stats.Verdict{}
	for _, r := range c.Rows {
		if strings.Contains(r.Variant, variant) {
			out[r.Unit] = r.Change.Verdict
		}
	}
	return out
}

func TestCompareVerdicts(t *testing.T) {
	old := fakeRun(t, 6)
	new := fakeRun(t, 6)
	// raw/prepare: 20% faster and a lower p99; raw/interpolate: 1% faster (within noise);
	// orm/prepare: 20% slower; hello unchanged.
	scale := func(v *results.Variant, qps, lat float64) {
		for _, r := range v.Reps {
			r.QPS *= qps
			r.P99 *= lat
		}
	}
	scale(new.Variants[1], 1.2, 0.5)
	scale(new.Variants[2], 1.01, 1)
	scale(new.Variants[4], 0.8, 1.5)
	c, err := Compare(old, new, stats.DefaultNoise)
	if err != nil {
		t.Fatal(err)
	}
	for variant, want := range map[string]map[string]stats.Verdict{
		"layer=raw/stmt=prepare/":                    {units.QPS: stats.Improved, units.P99: stats.Improved, units.P50: stats.NoChange, units.Roundtrips: stats.NoChange},
		"layer=raw/stmt=interpolate/conn=persistent": {units.QPS: stats.WithinNoise, units.P99: stats.NoChange},
		"layer=orm/stmt=prepare/":                    {units.QPS: stats.Regressed, units.P99: stats.Regressed},
		"layer=hello/":                               {units.QPS: stats.NoChange, units.AppCPU: stats.NoChange},
	} {
		got := verdicts(c, variant)
		for unit, v := range want {
			if got[unit] != v {
				t.Errorf("%s %s: verdict %q, want %q", variant, unit, got[unit], v)
			}
		}
	}
	if c.Regressions() != 2 {
		t.Errorf("%d regressions, want 2 (orm/prepare QPS and p99)", c.Regressions())
	}
	s := c.String()
	for _, want := range []string{
		"BenchmarkSingleRow/lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/pool=8\n  req/s           change: [+19.",
		"(p = 0.002, n = 6) improved\n",
		"(p = 0.002, n = 6) within noise\n",
		"invalid, not compared:\n  BenchmarkSingleRow/lang=go/server=nethttp/layer=gorm/stmt=prepare/conn=persistent/pool=8: verification: /users/abc answered 500, want 400 (old run)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("compare output lacks %q:\n%s", want, s)
		}
	}

	// With a 0.5% threshold the 1% gain is an improvement.
	c, err = Compare(old, new, 0.005)
	if err != nil {
		t.Fatal(err)
	}
	if got := verdicts(c, "layer=raw/stmt=interpolate/conn=persistent")[units.QPS]; got != stats.Improved {
		t.Errorf("0.5%% noise: verdict %q, want improved", got)
	}
}

func TestCompareVariantsOnOneSideAndTooFewReps(t *testing.T) {
	old, new := fakeRun(t, 2), fakeRun(t, 2)
	new.Variants = new.Variants[1:] // hello only in old
	extra := fakeVariant(t, "php", "raw", "prepare", "persistent", seqQPS(900, 1, 2), 3, 300, prepLog)
	new.Variants = append(new.Variants, extra)
	c, err := Compare(old, new, stats.DefaultNoise)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.OnlyOld) != 1 || !strings.Contains(c.OnlyOld[0], "layer=hello") || len(c.OnlyNew) != 1 || !strings.Contains(c.OnlyNew[0], "lang=php") {
		t.Errorf("only old %q, only new %q", c.OnlyOld, c.OnlyNew)
	}
	// Two against two can never be significant, and the output says why beside the number.
	s := c.String()
	if !strings.Contains(s, "change: [-∞ +0.0% +∞] (p = 1.000, n = 2) no change [need >= 4 samples to detect a difference") {
		t.Errorf("too-few-repetitions warning missing:\n%s", s)
	}
	if _, err := Compare(old, new, 1.5); err == nil || !strings.Contains(err.Error(), "noise 1.5") {
		t.Errorf("noise 1.5: err = %v, want a clear error", err)
	}
}

func TestBaselineRoundTrip(t *testing.T) {
	runDir, baselines := t.TempDir(), t.TempDir()
	r := fakeRun(t, 6)
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
	if len(got.Variants) != len(r.Variants) || got.Variants[1].Reps[0].QPS != r.Variants[1].Reps[0].QPS {
		t.Errorf("baseline read back differs from the run saved")
	}
	for _, bad := range []string{"../x", "a/b", ".hidden", ""} {
		if _, err := SaveBaseline(runDir, baselines, bad); err == nil {
			t.Errorf("SaveBaseline(%q) succeeded, want a bad-name error", bad)
		}
	}
	if _, err := LoadBaseline(baselines, "missing"); err == nil || !strings.Contains(err.Error(), `baseline "missing" not found`) {
		t.Errorf("missing baseline: err = %v", err)
	}
}
