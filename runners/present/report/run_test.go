package report

import (
	"fmt"
	"testing"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/histogram"
	"dbbench/runners/results"
)

// fakeVariant builds a measured variant whose repetition i has QPS qps[i], latencies
// scaled by lat (p50 = lat ms, p99 = 4·lat ms) and app CPU app µs per request. Reports
// are pure functions of results.json, so synthetic runs with known samples test them.
func fakeVariant(t *testing.T, lang, layer, stmt, conn string, qps []float64, lat, app float64, log map[string]float64) *results.Variant {
	t.Helper()
	v := &results.Variant{
		Variant: matrix.Variant{Lang: lang, Server: "nethttp", Layer: layer, Stmt: stmt, Conn: conn, Pool: 8},
		Valid:   true,
		DB:      layer != "hello",
		Kind:    map[string]string{"raw": "raw", "orm": "orm", "gorm": "orm"}[layer],
		Library: "lib-" + layer,
	}
	v.Name = fmt.Sprintf("BenchmarkSingleRow/lang=%s/server=nethttp/layer=%s/stmt=%s/conn=%s/pool=8", lang, layer, stmt, conn)
	v.Key = v.Name[len("BenchmarkSingleRow/"):]
	if log != nil {
		v.Roundtrips = &results.Roundtrips{Requests: 100, Log: log, Wire: log, Expected: map[string]int{}, Match: true}
	}
	for i, q := range qps {
		h := histogram.New()
		for j := 1; j <= 1000; j++ {
			// 1..1000 spread around lat ms: p50 ≈ lat, p99 ≈ 4·lat.
			ms := lat * float64(j) / 500
			if j > 980 {
				ms = 4 * lat
			}
			if err := h.RecordValue(int64(ms * 1e6)); err != nil {
				t.Fatal(err)
			}
		}
		enc, err := histogram.Encode(h)
		if err != nil {
			t.Fatal(err)
		}
		v.Reps = append(v.Reps, &results.Repetition{
			Rep: i + 1, Started: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC), Seconds: 1,
			Requests: int64(q), OK: int64(q), QPS: q,
			P50: lat / 1e3, P90: 2 * lat / 1e3, P99: 4 * lat / 1e3 * (1 + float64(i)/100), P999: 5 * lat / 1e3, Max: 6 * lat / 1e3,
			AppCPU: app / 1e6, DBCPU: 50e-6, GenCPU: 20e-6,
			Latency: enc, Service: enc,
		})
	}
	return v
}

// seqQPS returns from, from+step, … (n values).
func seqQPS(from, step float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = from + step*float64(i)
	}
	return out
}

var (
	prepLog   = map[string]float64{"Prepare": 1, "Execute": 1, "Close stmt": 1}
	queryLog  = map[string]float64{"Query": 1}
	perReqLog = map[string]float64{"Connect": 1, "Query": 1, "Quit": 1}
)

// fakeRun is a run of six repetitions: hello, raw and orm at prepare and interpolate,
// raw per-request, and one invalid variant.
func fakeRun(t *testing.T, reps int) *results.Run {
	r := &results.Run{
		Schema: results.Schema, Status: "complete",
		Started:     time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Environment: map[string]string{"os": "Debian GNU/Linux 12 (bookworm)", "cpu-count": "2"},
		Settings:    results.Settings{Preset: "test", Provider: "embedded", Rows: 1000, Connections: 16, Reps: reps, Duration: "1s", Warmup: "1s"},
		Langs:       map[string]*results.Lang{"go": {Baseline: "raw", Servers: map[string]*results.Server{"nethttp": {Launcher: "go", Pool: "SetMaxOpenConns"}}}},
	}
	hello := fakeVariant(t, "go", "hello", "none", "none", seqQPS(40000, 100, reps), 0.2, 20, nil)
	r.Variants = []*results.Variant{
		hello,
		fakeVariant(t, "go", "raw", "prepare", "persistent", seqQPS(5000, 10, reps), 2, 100, prepLog),
		fakeVariant(t, "go", "raw", "interpolate", "persistent", seqQPS(8000, 10, reps), 1, 70, queryLog),
		fakeVariant(t, "go", "raw", "interpolate", "per-request", seqQPS(4000, 10, reps), 3, 200, perReqLog),
		fakeVariant(t, "go", "orm", "prepare", "persistent", seqQPS(4000, 10, reps), 2.5, 130, prepLog),
		fakeVariant(t, "go", "orm", "interpolate", "persistent", seqQPS(7000, 10, reps), 1.2, 90, queryLog),
	}
	bad := fakeVariant(t, "go", "gorm", "prepare", "persistent", seqQPS(123456, 1, reps), 1, 1, prepLog)
	bad.Valid = false
	bad.InvalidReason = "verification: /users/abc answered 500, want 400"
	r.Variants = append(r.Variants, bad)
	return r
}
