package sweep

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/judge/poolsize"
	"dbbench/runners/present/doc"
	"dbbench/runners/results"
	"dbbench/runners/saturation"
)

const family = "lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent"

// syntheticRun has a Go family at pools 1..8: each point's six searches around a known
// capacity (±3%), a closed-loop ceiling, and a round-trip count whose requests held
// their connection 1.1 ms each (one round trip, measured 1.05 ms away).
func syntheticRun(capacity []float64) *results.Run {
	r := &results.Run{Schema: results.Schema, Status: "complete", Environment: map[string]string{"cpu-count": "2"},
		Command: "dbbench sweep pool --rtt 1ms", Link: &results.Link{Added: 0.001, Path: 0.00105, Direct: 0.00004}}
	for i, pool := range []int{1, 2, 4, 8}[:len(capacity)] {
		c := capacity[i]
		v := &results.Variant{
			Key:     family + "/pool=" + strconv.Itoa(pool),
			Variant: matrix.Variant{Lang: "go", Server: "nethttp", Layer: "raw", Stmt: "interpolate", Conn: "persistent", Pool: pool},
			DB:      true,
			Valid:   true,
			Roundtrips: &results.Roundtrips{Requests: 50, Wire: map[string]float64{"Query": 1},
				ZeroLoad: &results.ZeroLoad{Requests: 50, Latency: 0.0015, LatencyLo: 0.0014, LatencyHi: 0.0016, LatencyP99: 0.002,
					DBWait: 0.0011, DBWaitLo: 0.00108, DBWaitHi: 0.00112}},
			Capacity: &results.Capacity{SLO: 0.05, Searches: []float64{0.97 * c, 0.99 * c, c, c, 1.01 * c, 1.03 * c}, Rate: c, Lo: 0.97 * c, Hi: 1.03 * c},
		}
		v.Reps = append(v.Reps, &results.Repetition{Rep: 1, QPS: 9000, AppCPU: 100e-6, DBCPU: 80e-6, GenCPU: 100e-6,
			Saturation: &saturation.Summary{Connections: 64}})
		r.Variants = append(r.Variants, v)
	}
	return r
}

var need = poolsize.Need{Rate: 1500, P99: 50 * time.Millisecond, RTT: time.Millisecond, Instances: 4, MaxConnections: 151}

// The smallest pool whose whole interval holds the rate is the answer; a smaller pool
// whose interval straddles it is named as undecided; the model answers beside it.
func TestAdviseTakesTheIntervalIntoAccount(t *testing.T) {
	cv := Curves(syntheticRun([]float64{880, 1480, 2900, 5000}))[0]
	a := Advise(cv, need)
	if a.Pool != 4 || a.Undecided != 2 {
		t.Fatalf("advice %+v: want pool 4 (whose interval holds 1500), 2 undecided (its interval straddles 1500)", a)
	}
	if !a.HasModel || a.Model.Pool < 2 {
		t.Fatalf("model %+v", a.Model)
	}
	// The model's pool limit at this distance, from a hold of 1.1 ms: pool 1 holds less
	// than 1/1.1 ms = 909 req/s, where 280 µs of CPU a request keep 2 cores 13% busy:
	// the CPU barely moves it.
	pred, limit, ok := Predicted(cv, cv.Points[0], need)
	if !ok || limit >= 909 || limit <= 0 || pred > limit || pred < 0.97*limit {
		t.Errorf("pool 1: predicted %g, limit %g, want a limit under 909 req/s and the CPU within 3%% of it", pred, limit)
	}
	// Pool 8's limit alone is over 7000 req/s, where the CPU alone would fill 2 cores
	// (2 / 280 µs = 7143 req/s): the CPU, not the pool, sets the prediction.
	if pred, limit, _ := Predicted(cv, cv.Points[3], need); limit <= 7143 || pred >= 0.9*7143 {
		t.Errorf("pool 8: predicted %g, limit %g: want the pool's limit over 7143 req/s and the CPU's prediction well under it", pred, limit)
	}
	if a := Advise(cv, poolsize.Need{Rate: 10000, P99: need.P99, RTT: need.RTT, Instances: 1, MaxConnections: 151}); a.Pool != 0 {
		t.Errorf("10000 req/s held by pool %d; no pool's capacity reaches it", a.Pool)
	}
}

// The page says the recommendation first, in the sentence scripts read, with the
// interval, the model, the Go settings and the command that made it.
func TestPoolPageRecommendsFirst(t *testing.T) {
	page := PoolPage(JudgePool(syntheticRun([]float64{880, 1480, 2900, 5000}), need))
	if len(page.Answer) != 1 {
		t.Fatalf("answer %q", page.Answer)
	}
	for _, want := range []string{"the smallest pool that holds is **4**: its capacity is 2900 req/s [2813, 2987]",
		"pool 2 may hold too", "at 1500 req/s per app instance, p99 ≤ 50ms, 1ms to the database, 4 instances, max_connections 151",
		"db.SetMaxOpenConns(4)", "4 instances × 4 = 16 connections"} {
		if !strings.Contains(page.Answer[0], want) {
			t.Errorf("answer lacks %q:\n%s", want, page.Answer[0])
		}
	}
	md := string(doc.Markdown(page))
	for _, want := range []string{"Made by `dbbench sweep pool --rtt 1ms`.", "| 4 | 2900 [2813, 2987] |", "share this machine",
		"The model is within ±15% of the measured capacity at", "| connection | 1 | 1.1 ms [1.08 ms, 1.12 ms] | 1.05 ms |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}

// A family's CPU is what its largest pool's probes that held cost, in open loop, where
// a capacity is decided; a sweep without such probes falls back to the ceiling slices.
func TestCurveCPUIsTheOpenLoopProbesThatHeld(t *testing.T) {
	r := syntheticRun([]float64{880, 1480})
	if got := Curves(r)[0].CPU(); got.App != 100e-6 || got.Other != 100e-6 {
		t.Fatalf("no probes: CPU %+v, want the ceiling's", got)
	}
	big := r.Variants[1]
	big.Reps = append(big.Reps,
		&results.Repetition{Rep: 2, AppCPU: 150e-6, DBCPU: 90e-6, GenCPU: 120e-6, Saturation: &saturation.Summary{Offered: 1400}},
		&results.Repetition{Rep: 3, AppCPU: 400e-6, DBCPU: 90e-6, GenCPU: 120e-6, Saturation: &saturation.Summary{Offered: 1600}})
	big.Capacity.Probes = []results.Probe{{Rate: 1400, Rep: 2, Pass: true}, {Rate: 1600, Rep: 3, Why: "p99 80 ms above 50ms"}}
	if got := Curves(r)[0].CPU(); got.App != 150e-6 || got.DB != 90e-6 || got.Other != 120e-6 {
		t.Errorf("CPU %+v, want the probe that held (app 150 µs, db 90, other 120)", got)
	}
}

// Each point is predicted with the CPU its own probes that held cost: a small pool's
// lower rates cost more per request than the family's largest pool's, and a point
// without such probes takes the family's.
func TestPredictedTakesThePointsOwnCPU(t *testing.T) {
	r := syntheticRun([]float64{880, 1480})
	small, big := r.Variants[0], r.Variants[1]
	small.Reps = append(small.Reps, &results.Repetition{Rep: 2, AppCPU: 900e-6, DBCPU: 300e-6, GenCPU: 400e-6, Saturation: &saturation.Summary{Offered: 800}})
	small.Capacity.Probes = []results.Probe{{Rate: 800, Rep: 2, Pass: true}}
	big.Reps = append(big.Reps, &results.Repetition{Rep: 2, AppCPU: 100e-6, DBCPU: 80e-6, GenCPU: 100e-6, Saturation: &saturation.Summary{Offered: 1400}})
	big.Capacity.Probes = []results.Probe{{Rate: 1400, Rep: 2, Pass: true}}
	cv := Curves(r)[0]
	own, _, _ := Predicted(cv, cv.Points[0], need)
	cv.Points[0].held = nil // as if pool 1 had no probe that held
	family, _, _ := Predicted(cv, cv.Points[0], need)
	// 1.6 ms of CPU a request fill 2 cores at 1250 req/s: at pool 1's ~850 they are 68%
	// busy and its hold's work stretches; at 280 µs they are 12% busy.
	if !(own < family) {
		t.Errorf("pool 1 predicted %g with its own CPU, %g with the family's: want its own, dearer CPU to predict less", own, family)
	}
}

// Where the model and the sweep are more than a size apart, the page says why: a gap in
// the sweep's pools that the model's answer falls into, or the hosts the model sizes.
func TestWhyApart(t *testing.T) {
	cv := Curves(syntheticRun([]float64{880, 1480, 2900, 5000}))[0]
	gap := whyApart(cv, Advice{Need: need, Pool: 8, Undecided: 4, Model: poolsize.Advice{Pool: 5}})
	if !strings.Contains(gap, "pool 4's measured interval straddles 1500 req/s (it may hold), the sweep measured no size between 4 and 8, and the model's 5 lies from 4 up to 7") {
		t.Errorf("a gap in the grid: %s", gap)
	}
	n := need
	n.AppCores, n.DBCores = 8, 4
	apart := Advise(cv, n) // the model on this machine's cores, with production's hosts
	apart.Pool, apart.Undecided, apart.Model = 8, 0, poolsize.Advice{Pool: 2}
	hosts := whyApart(cv, apart)
	if !strings.Contains(hosts, "an app host of 8 cores and a database host of 4, while here every role") || !strings.Contains(hosts, "shared 2 cores; on those the same model says") {
		t.Errorf("the hosts apart: %s", hosts)
	}
}

// The page's "Made by" line drops --out: the directory is the machine's that ran it.
func TestMadeByDropsOut(t *testing.T) {
	for in, want := range map[string]string{
		"dbbench sweep pool --out /work/meas/pool/x --rtt 1ms --rate 1500": "dbbench sweep pool --rtt 1ms --rate 1500",
		"dbbench sweep pool --out=/tmp/x --rtt 1ms":                        "dbbench sweep pool --rtt 1ms",
		"dbbench sweep pool --rtt 1ms":                                     "dbbench sweep pool --rtt 1ms",
	} {
		if got := withoutOut(in); got != want {
			t.Errorf("withoutOut(%q) = %q, want %q", in, got, want)
		}
	}
}
