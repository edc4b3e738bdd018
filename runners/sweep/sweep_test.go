package sweep

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dbbench/runners/dbtest"
	"dbbench/runners/matrix"
	"dbbench/runners/provider"
	"dbbench/runners/report"
	"dbbench/runners/run"
)

// A small real pool sweep and rtt sweep against the embedded MariaDB, a Go and a PHP
// target: the whole pipeline from run.Run to the report, and no process left behind.
func TestSweepsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end sweep skipped in -short mode")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	binDir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "gotarget"), "dbbench/go/cmd/gotarget").CombinedOutput(); err != nil {
		t.Fatalf("build gotarget: %v\n%s", err, out)
	}
	m := loadMatrix(t)
	var log strings.Builder
	base := run.Options{
		Root: root, BinDir: binDir, Matrix: m, DB: provider.Options{Rows: 1000, Log: &log}, KeepAlive: true, Seed: 3,
		Warmup: 100 * time.Millisecond, Duration: 300 * time.Millisecond, Reps: 2, Log: &log,
		Preset: &matrix.Preset{Name: "test-sweep", Connections: 1},
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log(log.String())
		}
	})
	ctx := context.Background()

	t.Run("pool", func(t *testing.T) {
		dir := t.TempDir()
		vs, err := ParseVariants(m, "lang=go/layer=raw/stmt=interpolate/conn=persistent,lang=php/layer=raw/stmt=interpolate/conn=persistent", 1)
		if err != nil {
			t.Fatal(err)
		}
		plan := PoolPlan{Levels: []int{4}, Reps: 2, SLO: time.Second, Probes: 3, OpenConnections: 16, Seed: 1}
		err = Pool(ctx, PoolOptions{Run: base, Variants: vs, Pools: map[string][]int{"go": {1, 2}, "php": {1, 2}}, Plan: plan, Out: dir})
		if err != nil {
			t.Fatal(err)
		}
		r, err := LoadPool(dir)
		if err != nil {
			t.Fatal(err)
		}
		curves := Curves(r)
		if len(curves) != 2 {
			t.Fatalf("%d curves, want go and php", len(curves))
		}
		for _, cv := range curves {
			if len(cv.Points) != 2 {
				t.Fatalf("%s: %d points, want pools 1 and 2", cv.Family, len(cv.Points))
			}
			for _, p := range cv.Points {
				l := p.Levels[4]
				if p.Invalid != "" || l == nil || len(l.QPS) < 2 || l.QPS[0] <= 0 {
					t.Fatalf("%s pool %d: %+v", cv.Family, p.Pool, p)
				}
				// Three probes between 0 and 1.25× the closed-loop QPS, one a round; at a
				// p99 target of a second, a small rate holds.
				if p.Capacity == nil || len(p.Capacity.Probes) != 3 || p.Capacity.Rate <= 0 {
					t.Fatalf("%s pool %d: capacity %+v", cv.Family, p.Pool, p.Capacity)
				}
			}
			// The largest pool also ran the concurrency series: clients 1 and 2.
			if l := cv.Largest(); l.Levels[1] == nil || l.Levels[2] == nil {
				t.Errorf("%s: no concurrency series at pool %d: levels %v", cv.Family, l.Pool, sortedLevels(l.Levels))
			}
		}
		// Four clients on one Go connection must queue for it: database/sql counts that.
		if g := curves[0]; g.Lang != "go" || len(g.Points[0].Levels[4].Waits) == 0 || g.Points[0].Levels[4].Waits[0] == 0 {
			t.Fatalf("go pool 1 at 4 clients recorded no pool waits: %+v", g.Points[0].Levels[4])
		}
		page := PoolPage(r, Production{Rate: 10, SLO: time.Second, DBCores: 2, Spindles: 1, MaxConnections: 151, AppInstances: 2})
		if err := report.WriteSweep(dir, page); err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(filepath.Join(dir, "report.md"))
		if err != nil || !strings.Contains(string(md), "lang=php/server=fpm/layer=raw/stmt=interpolate/conn=persistent: at 10 req/s with p99 ≤ 1s, the smallest pool that holds is **1**") {
			t.Fatalf("report.md (%v) lacks the php curve's recommendation:\n%s", err, md)
		}
	})

	t.Run("rtt", func(t *testing.T) {
		dir := t.TempDir()
		vs, err := ParseVariants(m, "lang=go/layer=raw/stmt=prepare/conn=persistent/pool=4", 4)
		if err != nil {
			t.Fatal(err)
		}
		err = RTT(ctx, RTTOptions{Run: base, Variants: vs, Delays: []time.Duration{0, time.Millisecond},
			Concurrency: 4, Rate: 100, Out: dir})
		if err != nil {
			t.Fatal(err)
		}
		plan, points, err := LoadRTT(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(points) != 4 {
			t.Fatalf("%d runs, want closed and open at two delays", len(points))
		}
		for _, pt := range points {
			v := pt.Run.Variants[0]
			if !v.Valid || len(v.Reps) != 2 {
				t.Fatalf("%v %s: valid %v (%s), %d reps", pt.Delay, pt.Mode, v.Valid, v.InvalidReason, len(v.Reps))
			}
			if pt.Delay == 0 {
				continue
			}
			// Prepare and Execute each wait for a round trip through the proxy, 2 ms
			// each at 1 ms each way: no request can be faster than 4 ms unless the
			// target bypassed the proxy.
			for _, r := range v.Reps {
				if r.P50 < 0.004 {
					t.Fatalf("%s loop at 1 ms each way: p50 %.2f ms, below the 4 ms the delay forces", pt.Mode, 1e3*r.P50)
				}
			}
		}
		md := string(report.SweepMarkdown(RTTPage(plan, points)))
		if !strings.Contains(md, "| lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/pool=4 | 2.00 |") {
			t.Fatalf("report.md lacks the variant with 2 round trips/op:\n%s", md)
		}
	})
	dbtest.AssertNoChildren(t)
}

// When the hook that puts the delay proxy in place fails, the run ends with its error
// and the database it had started is stopped, not left to the end of the process.
func TestRunStopsTheDatabaseWhenTargetDBAddrFails(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a database: skipped in -short mode")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	m := loadMatrix(t)
	var log strings.Builder
	_, err = run.Run(context.Background(), run.Options{
		Root: root, Matrix: m, DB: provider.Options{Rows: 100, Log: &log}, Log: &log, Out: t.TempDir(),
		Preset: &matrix.Preset{Name: "test", Connections: 1, Reps: 1, Duration: time.Second},
		List:   []matrix.Variant{{Lang: "go", Server: "nethttp", Layer: "raw", Stmt: "prepare", Conn: "persistent", Pool: 1}},
		TargetDBAddr: func(string) (string, error) {
			return "", errors.New("no proxy today")
		},
	})
	if err == nil || !strings.Contains(err.Error(), "no proxy today") {
		t.Fatalf("err = %v, want the hook's error", err)
	}
	dbtest.AssertNoChildren(t)
}
