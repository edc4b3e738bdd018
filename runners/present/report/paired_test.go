package report

import (
	"fmt"
	"math"
	"testing"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/histogram"
	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// pairedSlices is how many slices each variant of pairedRun has.
const pairedSlices = 8

// drift is the machine's pace at slice i, the same for every variant: pairs cancel it.
func drift(i int) float64 { return 1 + 0.15*math.Sin(float64(i)) }

// jitter is a variant's own noise at slice i, small and different per variant.
func jitter(seed, i int) float64 { return 1 + 0.004*float64((i*seed+seed)%5-2) }

// spec is a synthetic variant: its QPS and app CPU at pace 1, its allocations (Go).
type spec struct {
	lang, server, layer, stmt, conn, kind, lib string
	pool                                       int
	qps, cpuUS, allocs                         float64
}

var pairedSpecs = []spec{
	{"go", "nethttp", "hello", "none", "none", "", "", 8, 40000, 20, 10},
	{"go", "nethttp", "raw", "prepare", "persistent", "raw", "database/sql + go-sql-driver/mysql", 8, 5000, 100, 30},
	{"go", "nethttp", "raw", "interpolate", "persistent", "raw", "database/sql + go-sql-driver/mysql", 8, 7500, 70, 28},
	{"go", "nethttp", "raw", "prepared", "persistent", "raw", "database/sql + go-sql-driver/mysql", 8, 8000, 65, 26},
	{"go", "nethttp", "raw", "interpolate", "per-request", "raw", "database/sql + go-sql-driver/mysql", 8, 3750, 150, 60},
	{"go", "nethttp", "orm", "interpolate", "persistent", "orm", "Beego ORM v2", 8, 6750, 80, 70},
	{"go", "nethttp", "gorm", "interpolate", "persistent", "orm", "GORM", 8, 6000, 90, 110},
	{"go", "nethttp", "builder", "interpolate", "persistent", "builder", "squirrel", 8, 7125, 74, 45},
	{"go", "nethttp", "sqlx", "interpolate", "persistent", "raw", "sqlx", 8, 7500, 70, 29},
	{"php", "fpm", "hello", "none", "none", "", "", 4, 10000, 150, 0},
	{"php", "fpm", "raw", "interpolate", "persistent", "raw", "PDO", 4, 5000, 240, 0},
	{"php", "fpm", "raw", "interpolate", "per-request", "raw", "PDO", 4, 3000, 400, 0},
	{"php", "fpm", "orm", "interpolate", "persistent", "orm", "Eloquent", 4, 1800, 800, 0},
	{"php", "worker", "raw", "interpolate", "persistent", "raw", "PDO", 4, 15000, 80, 0},
	{"php", "worker", "orm", "interpolate", "persistent", "orm", "Eloquent", 4, 9000, 160, 0},
}

// pairedRun is a run measured in pairs, as run.Run writes one: every comparison
// package questions defines, each pair two slices measured at the same pace, so the
// ratios are the specs' ratios up to the variants' small jitter. Layer comparisons
// reached the precision target, the others not. One variant is invalid.
func pairedRun(t *testing.T) *results.Run {
	t.Helper()
	r := &results.Run{
		Schema: results.Schema, Status: "complete",
		Started:  time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC),
		Finished: time.Date(2026, 1, 2, 3, 12, 30, 0, time.UTC),
		Environment: map[string]string{"os": "Debian GNU/Linux 12 (bookworm)", "cpu": "Test CPU", "cpu-count": "2", "kernel": "6.1.0",
			"database": "embedded 10.11.19-MariaDB", "dbbench-go": "go1.26.8", "php": "8.2.36", "dbbench-commit": "abcdef0987"},
		Settings: results.Settings{Preset: "test", Provider: "embedded", Rows: 1000, Connections: 16, Reps: 6, Duration: "1s", Warmup: "1s",
			Pairing: &results.Pairing{Design: "walk", Slice: "1s", LeadIn: "150ms", Precision: 0.02, MinPairs: 6, MaxPairs: 60, Budget: "5m"}},
		Langs: map[string]*results.Lang{
			"go":  {Baseline: "raw", Default: "nethttp", Servers: map[string]*results.Server{"nethttp": {Launcher: "go", Pool: "SetMaxOpenConns"}}},
			"php": {Baseline: "raw", Default: "fpm", Servers: map[string]*results.Server{"fpm": {Launcher: "php-fpm"}, "worker": {Launcher: "php-worker"}}},
		},
	}
	for i, s := range pairedSpecs {
		r.Variants = append(r.Variants, pairedVariant(t, s, i+3))
	}
	bad := pairedVariant(t, spec{"go", "nethttp", "ent", "interpolate", "persistent", "orm", "ent", 8, 123456, 1, 1}, 99)
	bad.Valid, bad.InvalidReason = false, "verification: /users/abc answered 500, want 400"
	r.Variants = append(r.Variants, bad)
	for _, p := range questions.Pairs(r, func(v *results.Variant) bool { return v.Valid }) {
		c := &results.Comparison{Question: p.Question, Base: p.Base.Key, Other: p.Other.Key, Reached: p.Question == questions.Layer}
		for i := 1; i <= pairedSlices; i++ {
			c.Pairs = append(c.Pairs, results.Pair{Base: []int{i}, Other: []int{i}})
		}
		r.Comparisons = append(r.Comparisons, c)
	}
	r.Yardstick = &results.Yardstick{Work: "sha256 of 1 MiB", Readings: []*results.Reading{
		{Phase: "start", Trials: []float64{0.0020, 0.0021, 0.0020}}, {Phase: "after go", Trials: []float64{0.0022, 0.0022, 0.0023}},
		{Phase: "end", Trials: []float64{0.0021, 0.0020, 0.0021}}}}
	return r
}

// pairedVariant builds s's slices: QPS and app CPU move with the shared pace.
func pairedVariant(t *testing.T, s spec, seed int) *results.Variant {
	t.Helper()
	v := &results.Variant{
		Variant: matrix.Variant{Lang: s.lang, Server: s.server, Layer: s.layer, Stmt: s.stmt, Conn: s.conn, Pool: s.pool},
		Valid:   true,
		DB:      s.layer != "hello",
		Kind:    s.kind,
		Library: s.lib,
	}
	v.Key = fmt.Sprintf("lang=%s/server=%s/layer=%s/stmt=%s/conn=%s/pool=%d", s.lang, s.server, s.layer, s.stmt, s.conn, s.pool)
	v.Name = "BenchmarkSingleRow/" + v.Key
	if v.DB {
		v.Roundtrips = roundtrips(s)
	}
	enc := latencyHistogram(t, 1e3/s.qps*float64(s.pool))
	for i := 1; i <= pairedSlices; i++ {
		pace, j := drift(i), jitter(seed, i)
		counts := map[string]float64{units.Syscalls("app"): 4, units.Switches("app"): 2}
		if s.lang == "go" {
			counts[units.Allocs], counts[units.AllocBytes], counts[units.GCCycles] = s.allocs, 40*s.allocs, 0.001
		} else {
			counts[units.ReqPeak] = 2 << 20 // php-fpm's and the workers' real peak: not shown
			if s.server == "worker" {
				counts[units.ReqPeakAlloc] = 400e3
			}
		}
		q := s.qps * pace * j
		v.Reps = append(v.Reps, &results.Repetition{
			Rep: i, Started: time.Date(2026, 1, 2, 3, 5, i, 0, time.UTC), Seconds: 1, Requests: int64(q), OK: int64(q), QPS: q,
			P50: 1 / s.qps, P90: 2 / s.qps, P99: 4 / s.qps, P999: 5 / s.qps, Max: 6 / s.qps,
			AppCPU: s.cpuUS * 1e-6 / pace / j, DBCPU: 50e-6, GenCPU: 20e-6, Counts: counts, Latency: enc, Service: enc,
		})
	}
	return v
}

// roundtrips are the commands a spec sends per request: by stmt, plus Connect and
// Quit per request, plus PDO's ping on a persistent connection.
func roundtrips(s spec) *results.Roundtrips {
	log := map[string]float64{"Query": 1}
	if s.stmt == "prepare" {
		log = map[string]float64{"Prepare": 1, "Execute": 1, "Close stmt": 1}
	}
	if s.stmt == "prepared" {
		log = map[string]float64{"Execute": 1}
	}
	if s.conn == "per-request" {
		log["Connect"], log["Quit"] = 1, 1
	}
	wire := map[string]float64{}
	for k, n := range log {
		wire[k] = n
	}
	if s.lang == "php" && s.conn == "persistent" {
		wire["Ping"] = 1
	}
	rt := &results.Roundtrips{Requests: 100, Log: log, Wire: wire, Expected: map[string]int{}, Match: true, BytesToDB: 79, BytesFromDB: 188}
	if s.conn == "per-request" {
		rt.Auth, rt.HandshakeTrips = map[string]float64{"mysql_native_password": 1}, 1
	}
	return rt
}

// latencyHistogram spreads 1000 requests around ms: p50 ≈ ms, p99 ≈ 4·ms.
func latencyHistogram(t *testing.T, ms float64) string {
	h := histogram.New()
	for j := 1; j <= 1000; j++ {
		x := ms * float64(j) / 500
		if j > 980 {
			x = 4 * ms
		}
		if err := h.RecordValue(int64(x * 1e6)); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := histogram.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// withProfiles gives the Go interpolate/persistent variants of r a profile: the
// same components, plus what each layer adds.
func withProfiles(r *results.Run) {
	extra := map[string]map[string]float64{
		"raw":     {},
		"orm":     {"orm": 6e-6, "reflect": 3e-6},
		"gorm":    {"orm": 12e-6, "reflect": 5e-6, "runtime/gc": 2e-6},
		"builder": {"query building": 4e-6},
	}
	for _, v := range r.Variants {
		add, ok := extra[v.Layer]
		if v.Lang != "go" || !ok || v.Stmt != "interpolate" || v.Conn != "persistent" {
			continue
		}
		comps := map[string]float64{"http": 25e-6, "driver": 20e-6, "json": 5e-6, "runtime/gc": 8e-6}
		for k, x := range add {
			comps[k] += x
		}
		v.Profile = &results.Profile{Seconds: 1, Requests: 7000, AppCPU: 70e-6, Components: comps,
			Files: map[string]string{"flame": "profiles/" + v.Layer + "/flame.svg", "cpu": "profiles/" + v.Layer + "/cpu.pprof"}}
	}
}
