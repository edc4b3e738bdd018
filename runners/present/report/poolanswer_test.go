package report

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"dbbench/runners/judge/poolsize"
	"dbbench/runners/results"
)

// The check's words follow its data: the model's pool and the one below with their
// probes' p99s; when the model's pool failed, the first that held and how far the
// model was short; when it did not run, why.
func TestCheckText(t *testing.T) {
	pt := func(pool int, held bool, p99s ...float64) *results.CheckedPoint {
		p := &results.CheckedPoint{Pool: pool, Held: held, P99s: p99s}
		for i, x := range p99s {
			pr := results.Probe{Rep: i + 1, Pass: x < 0.05}
			if !pr.Pass {
				pr.Why = fmt.Sprintf("p99 %.1f ms above 50ms", 1e3*x)
			}
			p.Probes = append(p.Probes, pr)
		}
		return p
	}
	fam := "lang=php/server=fpm/layer=raw/stmt=interpolate/conn=persistent"
	pc := &results.PoolCheck{Rate: 1000, RTT: results.Duration(time.Millisecond), Path: 0.00121, Families: []*results.CheckedFamily{
		{Family: "lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent", Model: 2,
			Points: []*results.CheckedPoint{pt(1, false, 0.120), pt(2, true, 0.0041, 0.0039), pt(3, true, 0.003), pt(4, true, 0.003)}},
		{Family: fam, Model: 4, Points: []*results.CheckedPoint{pt(3, false, 0.5), pt(4, false, 0.689), pt(5, true, 0.0079), pt(8, true, 0.005)}},
	}}
	// A probe that failed on its backlog with its p99 under the target says why.
	pc.Families[0].Points[0].Probes[0].Why = "past capacity: achieved 977 of 1000 req/s offered"
	pc.Families[0].Points[0].P99s[0] = 0.0321
	s := checkText(pc)
	for _, want := range []string{"open loop at 1000 req/s evenly spaced with 1ms to the database (1.21 ms measured)",
		"go/nethttp/raw/interpolate at the model's pool for this machine, 2, held (p99 4.1 ✓, 3.9 ✓ ms), 1 did not (p99 32.1 ✗ ms, past capacity)",
		"php/fpm/raw/interpolate at the model's pool for this machine, 4, did not (p99 689.0 ✗ ms), 3 did not (p99 500.0 ✗ ms); 5 held (p99 7.9 ✓ ms): the model was short by 1"} {
		if !strings.Contains(s, want) {
			t.Errorf("check text lacks %q:\n%s", want, s)
		}
	}
	pc.Families[1].Points = []*results.CheckedPoint{pt(3, false), pt(4, false), pt(5, false), pt(8, false)}
	if s := checkText(pc); !strings.Contains(s, "none up to 8 held: the model was short by more than 4") {
		t.Errorf("none held:\n%s", s)
	}
	for pc, want := range map[*results.PoolCheck]string{
		nil: "Modelled, not checked (runs before the check).",
		{Skipped: "the app runs on another host (--app-host)"}: "Modelled, not checked: the app runs on another host (--app-host).",
	} {
		if got := checkText(pc); got != want {
			t.Errorf("checkText = %q, want %q", got, want)
		}
	}
}

// The first screen's check is the check in a few words, per family by who holds the
// pool; it repeats the rate and distance only when they are not the need's, which the
// sentence has just echoed.
func TestCheckSummary(t *testing.T) {
	pt := func(pool int, held bool) *results.CheckedPoint {
		return &results.CheckedPoint{Pool: pool, Held: held, P99s: []float64{0.01}, Probes: []results.Probe{{Rep: 1, Pass: held}}}
	}
	pc := &results.PoolCheck{Rate: 1000, RTT: results.Duration(500 * time.Microsecond), Families: []*results.CheckedFamily{
		{Family: "lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent", Model: 2, Points: []*results.CheckedPoint{pt(1, true), pt(2, true)}},
		{Family: "lang=php/server=fpm/layer=raw/stmt=interpolate/conn=persistent", Model: 2, Points: []*results.CheckedPoint{pt(1, false), pt(2, false), pt(3, true)}},
		{Family: "lang=php/server=worker/layer=raw/stmt=interpolate/conn=persistent", Model: 2, Points: []*results.CheckedPoint{pt(1, false), pt(2, true)}},
	}}
	need := poolsize.Need{Rate: 1000, RTT: 500 * time.Microsecond}
	want := "Checked here: Go 2 held (1 too); php-fpm 2 did not, 3 held (model 1 short); resident workers 2 held, 1 did not."
	if got := checkSummary(pc, need); got != want {
		t.Errorf("checkSummary =\n%q, want\n%q", got, want)
	}
	need.Rate = 1500
	pc.Families = pc.Families[:1]
	if got := checkSummary(pc, need); got != "Checked here at 1000 req/s, 500µs away: Go 2 held (1 too)." {
		t.Errorf("checkSummary at another rate = %q", got)
	}
}
