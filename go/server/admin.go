package server

import (
	"database/sql"
	"net/http"
	"net/http/pprof"
	"runtime/metrics"
)

// Metrics are the runtime/metrics samples GET /debug/metrics serves: cumulative heap
// allocations and GC cycles (the runner divides their deltas by the requests served:
// counts that do not depend on the machine's speed), and the gauges a soak watches.
var Metrics = []string{
	"/gc/heap/allocs:objects",
	"/gc/heap/allocs:bytes",
	"/gc/cycles/total:gc-cycles",
	"/sched/goroutines:goroutines",
	"/gc/heap/live:bytes",
	"/memory/classes/total:bytes",
}

// PoolStats is database/sql's DBStats with the connections' holds (go/held): how many
// checkouts ended and how long they held their connection together, in nanoseconds.
type PoolStats struct {
	sql.DBStats
	Holds        int64
	HeldDuration int64
}

// Admin serves GET /debug/dbstats (PoolStats as JSON, durations in nanoseconds), GET
// /debug/metrics (Metrics as a JSON object, name → number) and net/http/pprof under
// /debug/pprof/. stats is nil for the hello layer, which has no pool: then
// /debug/dbstats is a 404 that says so.
func Admin(stats func() PoolStats) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/debug/dbstats", getOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if stats == nil {
			WriteError(w, http.StatusNotFound, "this layer uses no database, so it has no DBStats")
			return
		}
		WriteJSON(w, http.StatusOK, stats())
	})))
	mux.Handle("/debug/metrics", getOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		WriteJSON(w, http.StatusOK, readMetrics())
	})))
	// Registered by hand: importing pprof for its side effect would put it on
	// http.DefaultServeMux, which nothing here serves.
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// readMetrics reads Metrics; a name this Go version does not know is left out.
func readMetrics() map[string]float64 {
	samples := make([]metrics.Sample, len(Metrics))
	for i, name := range Metrics {
		samples[i].Name = name
	}
	metrics.Read(samples)
	out := make(map[string]float64, len(samples))
	for _, s := range samples {
		switch s.Value.Kind() {
		case metrics.KindUint64:
			out[s.Name] = float64(s.Value.Uint64())
		case metrics.KindFloat64:
			out[s.Name] = s.Value.Float64()
		}
	}
	return out
}
