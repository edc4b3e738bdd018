package sweep

import (
	"slices"
	"strings"
	"testing"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/judge/poolsize"
	"dbbench/runners/results"
	"dbbench/runners/saturation"
)

// The ladder probes the pool below the model's, the model's, the one above and twice
// it, so that a model short by up to n still finds one that holds.
func TestLadder(t *testing.T) {
	for n, want := range map[int][]int{0: nil, 1: {1, 2}, 2: {1, 2, 3, 4}, 4: {3, 4, 5, 8}} {
		if got := Ladder(n); !slices.Equal(got, want) {
			t.Errorf("Ladder(%d) = %v, want %v", n, got, want)
		}
	}
}

// A point holds only when every probe that decided held; a probe whose generator fell
// behind does not count either way; a point with none decided does not hold.
func TestSettleCheck(t *testing.T) {
	pc := &results.PoolCheck{Families: []*results.CheckedFamily{{Family: family, Model: 2}}}
	point := func(pool int, probes ...results.Probe) *results.Variant {
		v := &results.Variant{
			Variant:  matrix.Variant{Lang: "go", Server: "nethttp", Layer: "raw", Stmt: "interpolate", Conn: "persistent", Pool: pool},
			Valid:    true,
			Capacity: &results.Capacity{Probes: probes},
		}
		for _, p := range probes {
			v.Reps = append(v.Reps, &results.Repetition{Rep: p.Rep, P99: float64(p.Rep) / 1000, QPS: 1000})
		}
		return v
	}
	run := &results.Run{Link: &results.Link{Path: 0.0011}, Variants: []*results.Variant{
		point(2, results.Probe{Rep: 1, Pass: true}, results.Probe{Rep: 2, Inconclusive: true}, results.Probe{Rep: 3, Pass: true}),
		point(1, results.Probe{Rep: 4, Pass: true}, results.Probe{Rep: 60, Why: "p99 60.0 ms above 50ms"}),
		point(4, results.Probe{Rep: 5, Inconclusive: true}),
	}}
	settleCheck(pc, run)
	f := pc.Families[0]
	if len(f.Points) != 3 || f.Points[0].Pool != 1 || pc.Path != 0.0011 {
		t.Fatalf("points %+v, path %g", f.Points, pc.Path)
	}
	if p := f.Points[0]; p.Held || p.Why != "p99 60.0 ms above 50ms" {
		t.Errorf("pool 1 failed a probe: %+v", p)
	}
	if p := f.Points[1]; !p.Held || len(p.P99s) != 3 {
		t.Errorf("pool 2 held both decided probes: %+v", p)
	}
	if p := f.Points[2]; p.Held {
		t.Errorf("pool 4 decided nothing, so it did not hold: %+v", p)
	}
}

// The check picks, per language and server, the raw driver at persistent connections
// at the stmt mode most of the group's variants share, with the model's pool for this
// machine.
func TestCheckTargets(t *testing.T) {
	mk := func(layer, kind, stmt string) *results.Variant {
		return &results.Variant{
			Variant: matrix.Variant{Lang: "go", Server: "nethttp", Layer: layer, Stmt: stmt, Conn: "persistent"},
			Kind:    kind,
			DB:      true,
			Valid:   true,
			Roundtrips: &results.Roundtrips{Requests: 50, Wire: map[string]float64{"Query": 1},
				ZeroLoad: &results.ZeroLoad{Requests: 50, Latency: 3e-4, LatencyLo: 2.9e-4, LatencyHi: 3.1e-4, LatencyP99: 6e-4, DBWait: 1e-4, DBWaitLo: 0.9e-4, DBWaitHi: 1.1e-4}},
			Reps: []*results.Repetition{{Rep: 1, AppCPU: 60e-6, DBCPU: 40e-6, GenCPU: 50e-6, Saturation: &saturation.Summary{Connections: 64}}},
		}
	}
	r := &results.Run{Link: &results.Link{Path: 5e-5}, Variants: []*results.Variant{
		mk("raw", "raw", "prepare"), mk("raw", "raw", "interpolate"), mk("orm", "orm", "interpolate"), mk("sqlx", "wrapper", "interpolate"),
	}}
	need := poolsize.Need{Rate: 1000, P99: 50 * time.Millisecond, RTT: time.Millisecond, Instances: 4, MaxConnections: 151}
	got := CheckTargets(r, need, 2, 0)
	if len(got) != 1 || got[0].Variant.Stmt != "interpolate" || got[0].Variant.Layer != "raw" || got[0].Model < 2 {
		t.Fatalf("CheckTargets = %+v", got)
	}
	// Through the check's proxy each round trip pays its hop too: a longer hold, whose
	// hop stretches on the shared cores. At 3000 req/s that takes a larger pool.
	need.Rate = 3000
	plain, hop := CheckTargets(r, need, 2, 0), CheckTargets(r, need, 2, 1.6e-3)
	if len(plain) != 1 || len(hop) != 1 || hop[0].Model <= plain[0].Model {
		t.Errorf("at 3000 req/s: pool %+v through a 1.6 ms path, not more than %+v at 1 ms", hop, plain)
	}
	h, _ := poolsize.Of(r.Variants[1], r.Link)
	moved, at := throughProxy(h, need, 1.6e-3)
	if moved.RTT != 1.6e-3 || moved.Added != 1e-3 || at.RTT != 1600*time.Microsecond {
		t.Errorf("through the proxy: hold at %g with %g slept, need at %v; want 1.6 ms, 1 ms, 1.6ms", moved.RTT, moved.Added, at.RTT)
	}
	if !strings.Contains(got[0].Variant.Family(), "stmt=interpolate/conn=persistent") {
		t.Errorf("family %q", got[0].Variant.Family())
	}
}
