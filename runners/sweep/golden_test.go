package sweep

import (
	"flag"
	"testing"
	"time"

	"dbbench/runners/internal/golden"
	"dbbench/runners/poolsize"
	"dbbench/runners/report"
)

// update rewrites the golden files instead of comparing with them:
// go test ./sweep -run Golden -update (every package's: make golden). go test hands
// the flag to every package it runs, and one without it fails, so not ./... -update.
var update = flag.Bool("update", false, "rewrite the golden files")

// The pool sweep's report.md from a trimmed real sweep (testdata/README.md), for the
// need the sample was sized for, compared line by line.
func TestGoldenPoolPage(t *testing.T) {
	r, err := LoadPool("testdata/pool-sweep")
	if err != nil {
		t.Fatal(err)
	}
	sampled := poolsize.Need{Rate: 2000, P99: 50 * time.Millisecond, RTT: 500 * time.Microsecond, Instances: 4, MaxConnections: 151}
	golden.Check(t, "testdata/pool-sweep.md", report.SweepMarkdown(PoolPage(r, sampled)), *update)
}

// The pool sweep's report.md where the real sample has no model (it predates the hold
// times): advice_test.go's synthetic family, with its model and its hold.
func TestGoldenPoolPageWithModel(t *testing.T) {
	page := PoolPage(syntheticRun([]float64{880, 1480, 2900, 5000}), need)
	golden.Check(t, "testdata/pool-model.md", report.SweepMarkdown(page), *update)
}

// The rtt sweep's report.md from a trimmed real sweep, compared line by line.
func TestGoldenRTTPage(t *testing.T) {
	plan, points, err := LoadRTT("testdata/rtt-sweep")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/rtt-sweep.md", report.SweepMarkdown(RTTPage(plan, points)), *update)
}
