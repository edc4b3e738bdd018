// Package findings judges a run's comparisons: each one's ratios, Other ÷ Base, in
// req/s and in app CPU per request, with their paired intervals and what those decide
// at one margin. It is the one place that does: the run's stopping rule reads the
// intervals it gives, the run stores its findings in results.json, and the report and
// the terminal only format them.
package findings

import (
	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// Margin is the equivalence margin of every within-run verdict: differences within ±2%
// are too small to matter, and 2% is the precision a run aims at (run.DefaultPrecision).
const Margin = 0.02

// MarginOf is the margin a comparison of question q in r is judged at: a run of two
// revisions (dbbench ab) states its own threshold, which its verdicts use.
func MarginOf(r *results.Run, q string) float64 {
	if q == questions.Rev && r.AB != nil && r.AB.Margin > 0 {
		return r.AB.Margin
	}
	return Margin
}

// Judge estimates c's ratios from its pairs and decides them at c's margin. QPS is nil
// with no pair to estimate from; AppCPU is nil where a side did not measure it.
func Judge(r *results.Run, c *results.Comparison) *results.Finding {
	m := MarginOf(r, c.Question)
	f := &results.Finding{Margin: m}
	if e, err := questions.Estimate(r, c, units.QPS); err == nil {
		f.QPS = Decide(e, m)
	}
	if e, err := questions.Estimate(r, c, units.AppCPU); err == nil {
		f.AppCPU = Decide(e, m)
	}
	return f
}

// Of is c's finding: the one the run stored, or, where it stored none or judged it at
// another margin than today's, judged now from the same pairs.
func Of(r *results.Run, c *results.Comparison) *results.Finding {
	if f := c.Finding; f != nil && f.Margin == MarginOf(r, c.Question) {
		return f
	}
	return Judge(r, c)
}

// In is c's estimate in unit, judged alike: the finding's own for req/s and app CPU,
// any other figure (p99, the database's CPU, allocations) estimated from the same
// pairs and decided at the same margin; nil where the pairs do not measure it.
func In(r *results.Run, c *results.Comparison, unit string) *results.Judged {
	switch unit {
	case units.QPS:
		return Of(r, c).QPS
	case units.AppCPU:
		return Of(r, c).AppCPU
	}
	e, err := questions.Estimate(r, c, unit)
	if err != nil {
		return nil
	}
	return Decide(e, MarginOf(r, c.Question))
}

// Decide is e decided at margin m, in the form results stores.
func Decide(e stats.Estimate, m float64) *results.Judged {
	v, err := e.Decide(m)
	if err != nil {
		v = stats.Undecided // m is a positive constant or a validated flag: cannot happen
	}
	return &results.Judged{Estimate: e, Verdict: v}
}

// HalfWidth is the wider half-width of f's intervals, the stopping rule's measure; ok is
// false while a figure measured has no interval yet (one not measured does not count).
func HalfWidth(f *results.Finding) (w float64, ok bool) {
	if f.QPS == nil {
		return 0, false
	}
	for _, e := range []*results.Judged{f.QPS, f.AppCPU} {
		if e == nil {
			continue
		}
		if !e.HasInterval() {
			return 0, false
		}
		w = max(w, e.HalfWidth())
	}
	return w, true
}
