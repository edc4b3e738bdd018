// Package revcost answers the first question of a run of two revisions (dbbench ab):
// did B cost anything? For each variant, B against A in every figure that matters, as
// a ratio with its paired 95% interval and a verdict against the run's threshold; the
// MySQL commands per request, which are exact, as counts; and what fails the gate of
// dbbench ab --fail-on regression. It reads a results.Run and nothing else.
package revcost

import (
	"fmt"
	"strings"

	"dbbench/runners/judge/findings"
	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// Metric is one figure compared, by its bench.txt unit.
type Metric struct {
	Unit  string
	Name  string
	Short string // for a terminal's table
	// Gates: B worse by more than the threshold fails the gate. CPU per request and
	// throughput do; latency follows them at a fixed load and its tail is noisier, and
	// allocations are explained by CPU where they cost any.
	Gates bool
}

// Metrics are the figures compared, in the order the answer lists them.
var Metrics = []Metric{
	{units.AppCPU, "app CPU per request", "CPU/req", true},
	{units.QPS, "req/s", "req/s", true},
	{units.P50, "p50 latency", "p50", false},
	{units.P99, "p99 latency", "p99", false},
	{units.Allocs, "allocations per request", "allocs/req", false},
	{units.AllocBytes, "bytes allocated per request", "B/req", false},
}

// Figure is one figure of one variant: B ÷ A with its paired interval, and what the
// run's findings decided of it at the run's margin. It is not encoded itself (the
// embedded Judged's JSON would stand for it): judgement.json stores a StoredFigure.
type Figure struct {
	Metric
	results.Judged
	// Worse says B moved the figure the bad way (its ratio is on that side of 1).
	Worse bool
	// Beyond says the whole interval lies past the threshold: B changed the figure by
	// more than the threshold, at 95% confidence.
	Beyond bool
}

// Changed says the interval excludes no change and reaches past the threshold: B is
// worse or better (Worse says which).
func (e Figure) Changed() bool { return e.Verdict == stats.Different }

// Same says the interval lies inside the threshold.
func (e Figure) Same() bool {
	return e.Verdict == stats.Equivalent || e.Verdict == stats.DifferentWithinMargin
}

// Pair is one variant's answer: B's against A's, its two measurements paired.
type Pair struct {
	A, B     *results.Variant
	Reached  bool // the comparison reached the run's precision target
	Figures  []Figure
	Commands *Commands // nil when a side's commands were not captured
}

// Answer is the answer of a whole run.
type Answer struct {
	AB       *results.AB
	Variants []Pair
	// Unpaired are the variants that have no measured pair at the other revision
	// (invalid on a side, or stopped before a pair), with the reason.
	Unpaired []string
	// Broken are the variants valid at A and invalid at B: B broke them.
	Broken []string
}

// Of answers the run r, which must be a run of two revisions.
func Of(r *results.Run) (*Answer, error) {
	if r.AB == nil || r.AB.A == nil || r.AB.B == nil {
		return nil, fmt.Errorf("revcost: the run measured one revision, not two (dbbench ab)")
	}
	if !(r.AB.Margin > 0) {
		return nil, fmt.Errorf("revcost: threshold %v, want a fraction above 0", r.AB.Margin)
	}
	a := &Answer{AB: r.AB}
	paired := map[string]bool{}
	for _, c := range r.Comparisons {
		base, other := r.Variant(c.Base), r.Variant(c.Other)
		if c.Question != questions.Rev || base == nil || other == nil || len(c.Pairs) == 0 || !base.Valid || !other.Valid {
			continue
		}
		paired[base.Key], paired[other.Key] = true, true
		v := Pair{A: base, B: other, Reached: c.Reached, Commands: commandsOf(base, other)}
		for _, m := range Metrics {
			if e := findings.In(r, c, m.Unit); e != nil { // nil: no pair measured m
				v.Figures = append(v.Figures, judge(m, *e, findings.MarginOf(r, c.Question)))
			}
		}
		a.Variants = append(a.Variants, v)
	}
	for _, v := range r.Variants {
		if !paired[v.Key] {
			a.Unpaired = append(a.Unpaired, unpairedReason(v))
		}
		if v.Rev == r.AB.B.ID && !v.Valid && validAtA(r, v) {
			a.Broken = append(a.Broken, fmt.Sprintf("%s: valid at A, invalid at B: %s", Label(v), v.InvalidReason))
		}
	}
	return a, nil
}

// validAtA says whether b's variant at A is valid.
func validAtA(r *results.Run, b *results.Variant) bool {
	a := r.Variant(Label(b) + "/rev=" + r.AB.A.ID)
	return a != nil && a.Valid
}

func unpairedReason(v *results.Variant) string {
	if !v.Valid {
		return fmt.Sprintf("%s: invalid: %s", v.Key, v.InvalidReason)
	}
	return v.Key + ": no pair measured"
}

// judge reads findings' verdict of j (at margin, the run's own) in the figure's
// direction.
func judge(m Metric, j results.Judged, margin float64) Figure {
	up := j.Value > 1 // B's figure is higher
	e := Figure{Metric: m, Judged: j, Worse: up == (units.Better(m.Unit) == units.Lower)}
	e.Beyond = j.Verdict == stats.Different && j.Past(margin)
	return e
}

// Word is the verdict as a sentence says it of this figure: slower or faster for
// times and throughput, more or fewer for counts and bytes, "same within ±3%".
func (e Figure) Word(margin float64) string {
	count := e.Unit == units.Allocs || e.Unit == units.AllocBytes
	switch {
	case e.Same():
		return fmt.Sprintf("same within ±%g%%", 100*margin)
	case !e.Changed():
		return "undecided"
	case e.Worse && count:
		return "more"
	case count:
		return "fewer"
	case e.Worse:
		return "slower"
	}
	return "faster"
}

// Label is a variant's key without its revision: the variant both sides share.
func Label(v *results.Variant) string {
	return strings.TrimSuffix(v.Key, "/rev="+v.Rev)
}

// Change is a ratio B ÷ A as a change with its interval: "+4.9% [+1.8%, +8.1%]", or
// "+4.9% (no interval: 5 pairs)".
func Change(e stats.Estimate) string {
	if !e.HasInterval() {
		return fmt.Sprintf("%s (no interval: %s)", units.RatioChange(e.Value-1), units.Count(e.N, "pair"))
	}
	return units.Estimate(units.RatioChange(e.Value-1), units.RatioChange(e.Lo-1), units.RatioChange(e.Hi-1))
}
