package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"dbbench/runners/results"
	"dbbench/runners/sweep"
)

// `dbbench run` checks the fourth answer by measurement: the Go raw family at the pool
// the model predicts for this machine and its ladder, open loop at --pool-rate with
// --pool-rtt added; results.json keeps every point's probes and report.md says what
// held. Whether a pool holds here depends on the machine; that each point was probed
// and judged does not.
func TestPoolCheck(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := dbbench(t, nil, "run", "--preset", "smoke", "--variants", "^lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/",
		"--profile=false", "--duration", "1s", "--warmup", "300ms", "--reps", "2", "--rows", "1000",
		"--pool-rate", "300", "--pool-rtt", "1ms", "--pool-check-probes", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	r, err := results.Read(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	pc := r.PoolCheck
	if pc == nil || pc.Skipped != "" || pc.Error != "" || len(pc.Families) != 1 {
		t.Fatalf("pool check %+v", pc)
	}
	f := pc.Families[0]
	var pools []int
	for _, p := range f.Points {
		pools = append(pools, p.Pool)
		if len(p.Probes) == 0 || len(p.P99s) == 0 || p.Probes[0].Rate != 300 {
			t.Errorf("pool %d: probes %+v, p99s %v", p.Pool, p.Probes, p.P99s)
		}
	}
	if want := sweep.Ladder(f.Model); f.Model < 1 || !slices.Equal(pools, want) {
		t.Errorf("model %d, probed %v, want %v", f.Model, pools, want)
	}
	// 1 ms added: the targets' path to the database is at least that.
	if pc.Path < 0.001 || pc.RTT.D() != time.Millisecond {
		t.Errorf("path %g s, rtt %q", pc.Path, pc.RTT)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	// report.md is wrapped at 100 columns: read it as one line.
	if !strings.Contains(strings.Join(strings.Fields(string(md)), " "), "Checked here, every role on this machine's cores, open loop at 300 req/s evenly spaced with 1ms to the database") {
		t.Errorf("report.md does not say what the check measured:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(out, "pool-check", "results.json")); err != nil {
		t.Errorf("the check's own run: %v", err)
	}
}
