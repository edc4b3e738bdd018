package sweep

import (
	"flag"
	"testing"
	"time"

	"dbbench/runners/internal/golden"
	"dbbench/runners/judge/poolsize"
	"dbbench/runners/present/doc"
)

// update rewrites the golden files instead of comparing with them:
// go test ./sweep -run Golden -update (every package's: make golden). go test hands
// the flag to every package it runs, and one without it fails, so not ./... -update.
var update = flag.Bool("update", false, "rewrite the golden files")

// checkPage compares a sweep page's report.md and report.html with testdata/name.md and
// testdata/name.html, line by line.
func checkPage(t *testing.T, name string, p *doc.Page) {
	t.Helper()
	golden.Check(t, "testdata/"+name+".md", doc.Markdown(p), *update)
	h, err := doc.HTML(p)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/"+name+".html", h, *update)
}

// The pool sweep's report from a trimmed real sweep (testdata/README.md), for the need
// the sample was sized for.
func TestGoldenPoolPage(t *testing.T) {
	r, err := LoadPool("testdata/pool-sweep")
	if err != nil {
		t.Fatal(err)
	}
	sampled := poolsize.Need{Rate: 2000, P99: 50 * time.Millisecond, RTT: 500 * time.Microsecond, Instances: 4, MaxConnections: 151}
	checkPage(t, "pool-sweep", PoolPage(JudgePool(r, sampled)))
}

// The pool sweep's report where the real sample has no model (it predates the hold
// times): advice_test.go's synthetic family, with its model and its hold.
func TestGoldenPoolPageWithModel(t *testing.T) {
	checkPage(t, "pool-model", PoolPage(JudgePool(syntheticRun([]float64{880, 1480, 2900, 5000}), need)))
}

// The rtt sweep's report from a trimmed real sweep.
func TestGoldenRTTPage(t *testing.T) {
	plan, points, err := LoadRTT("testdata/rtt-sweep")
	if err != nil {
		t.Fatal(err)
	}
	checkPage(t, "rtt-sweep", RTTPage(plan, points))
}
