package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/present/doc"
	"dbbench/runners/results"
)

// fakeVariant is a measured variant whose repetitions have the given QPS and p99 (each
// rep ±1%), as run.Run would have written it.
func fakeVariant(v matrix.Variant, qps, p99, p50 float64, waits int64) *results.Variant {
	rv := &results.Variant{
		Name:    v.Name(),
		Key:     v.Key(),
		Variant: matrix.Variant{Lang: v.Lang, Server: v.Server, Layer: v.Layer, Stmt: v.Stmt, Conn: v.Conn, Pool: v.Pool},
		DB:      true,
		Valid:   true,
	}
	for i, f := range []float64{0.99, 1.01, 0.995, 1.005, 0.998, 1.002} {
		rv.Reps = append(rv.Reps, &results.Repetition{Rep: i + 1, QPS: qps * f, P99: p99 * f, P50: p50 * f,
			PoolCounted: true, PoolWaits: waits, ThreadsRunningMean: 2, ThreadsRunningMax: 3, Errors: map[string]int64{"timeout": 1}})
	}
	return rv
}

func fakeRun(c int, vs ...*results.Variant) *results.Run {
	return &results.Run{Schema: results.Schema, Status: "complete", Environment: map[string]string{"cpu-count": "2"},
		Settings: results.Settings{Connections: c, Reps: 6, Warmup: "500ms", Duration: "1s", Provider: "embedded"}, Variants: vs}
}

func TestLoadPoolWithoutRuns(t *testing.T) {
	if _, err := LoadPool(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no pool sweep") {
		t.Fatalf("err = %v", err)
	}
}

func TestRTTPageFromWrittenRuns(t *testing.T) {
	dir := t.TempDir()
	plan := RTTPlan{DelaysMicros: []int64{0, 1000}, Concurrency: 16, Rate: 200}
	if err := results.WriteJSON(filepath.Join(dir, "plan.json"), plan); err != nil {
		t.Fatal(err)
	}
	prep := matrix.Variant{Lang: "go", Server: "nethttp", Layer: "raw", Stmt: "prepare", Conn: "persistent", Pool: 16}
	interp := prep
	interp.Stmt = "interpolate"
	for _, us := range plan.DelaysMicros {
		d := time.Duration(us) * time.Microsecond
		extra := float64(us) / 1e6 // seconds
		for _, mode := range []string{Closed, Open} {
			p := fakeVariant(prep, 5000, 0.003, 0.001+4*extra, 0)
			p.Roundtrips = &results.Roundtrips{Wire: map[string]float64{"Prepare": 1, "Execute": 1, "Close stmt": 1}}
			i := fakeVariant(interp, 8000, 0.002, 0.0008+2*extra, 0)
			i.Roundtrips = &results.Roundtrips{Wire: map[string]float64{"Query": 1}}
			if err := os.MkdirAll(RTTDir(dir, d, mode), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := results.WriteJSON(filepath.Join(RTTDir(dir, d, mode), "results.json"), fakeRun(16, p, i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	gotPlan, points, err := LoadRTT(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != 4 || gotPlan.Rate != 200 {
		t.Fatalf("%d points, plan %+v", len(points), gotPlan)
	}
	md := string(doc.Markdown(RTTPage(gotPlan, points)))
	for _, want := range []string{
		"| lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/pool=16 | 2.00 | +4.00 / 4.00 |",
		"| lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=16 | 1.00 | +2.00 / 2.00 |",
		"| variant | round trips/op | 0 ms | 1 ms |",
		"## Open loop at 200 req/s: p99 ms",
		// QPS 8000/5000; open-loop p50 (0.8+2d) - (1+4d) ms: -0.20 at 0 ms, -2.20 at 1 ms.
		"lang=go/server=nethttp/layer=raw/conn=persistent/pool=16, interpolate against prepare: closed-loop QPS ×1.60 at 0 ms, ×1.60 at 1 ms; open-loop p50 -0.20 ms at 0 ms, -2.20 ms at 1 ms.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if _, _, err := LoadRTT(t.TempDir()); err == nil {
		t.Fatal("LoadRTT of an empty directory succeeded")
	}
}
