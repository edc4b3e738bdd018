package report

import (
	"testing"

	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// Answer 3 leads with the pool as shipped: its ratio to the tuned pool, the dials per
// request the server counted, and "a pool that churns" where it does.
func TestShippedClausesLeadWithTheDefaultsCost(t *testing.T) {
	v := func(conn string, dials float64) *results.Variant {
		return &results.Variant{Lang: "go", Layer: "raw", Library: "database/sql + go-sql-driver/mysql", Conn: conn, DB: true,
			Reps: []*results.Repetition{{Counts: map[string]float64{units.DBDials: dials}}}}
	}
	langs := map[string]*results.Lang{"go": {Modes: map[string]*results.ModeSetting{"persistent": {Set: "set `SetMaxIdleConns` = `SetMaxOpenConns`", Default: "2 idle"}}}}
	f := finding{Base: v("persistent", 0), Other: v("shipped", 0.09), QPS: estimate{RatioEstimate: stats.RatioEstimate{Ratio: 1, Lo: 0.99, Hi: 1.02, N: 8, Confidence: 0.95}, OK: true}}
	got := shippedClauses([]finding{f}, langs)
	want := "Go as shipped (default: 2 idle), of the throughput once you set `SetMaxIdleConns` = `SetMaxOpenConns`: database/sql keeps 1.00× [0.99, 1.02], dialling 0.09 per request: a pool that churns"
	if len(got) != 1 || got[0] != want {
		t.Errorf("clauses %q\nwant %q", got, want)
	}
	f.Other = v("shipped", 0)
	if got := shippedClauses([]finding{f}, langs); len(got) != 1 || got[0] != "Go as shipped (default: 2 idle), of the throughput once you set `SetMaxIdleConns` = `SetMaxOpenConns`: database/sql keeps 1.00× [0.99, 1.02], dialling 0 per request" {
		t.Errorf("a pool that does not churn: %q", got)
	}
}
