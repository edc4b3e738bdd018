package judge

import (
	"math"

	"dbbench/runners/judge/findings"
	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/results/benchfile"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// UnpairedMedians is the method of an estimate from each side's median, for runs
// measured without pairs.
const UnpairedMedians = "unpaired-medians"

// Comparison is one paired comparison judged.
type Comparison struct {
	// Finding is its ratios in req/s and app CPU: the one the run stored, or judged now
	// for a run that stored none or judged it at another margin (findings.Of).
	Finding *results.Finding
	// DBCPU is its ratio in the database's CPU per request, judged as the finding's
	// are; nil where a side did not measure it.
	DBCPU *results.Judged
	// Shifts are the pairs' differences in app CPU, allocations and bytes per request
	// (Hodges–Lehmann with its interval), for a comparison of two list lengths: what
	// the rows between them cost. Keyed by unit; a unit without pairs is absent.
	Shifts map[string]stats.Estimate
}

// Unpaired is a question's pair in a run measured without pairs, judged from each
// side's median.
type Unpaired struct {
	Question    string
	Base, Other *results.Variant
	QPS, AppCPU *results.Judged // nil: not measured on both sides
}

// rowUnits are the figures a row's cost is given in.
var rowUnits = []string{units.AppCPU, units.Allocs, units.AllocBytes}

// compare judges the run's comparisons, or, without any, its questions' pairs from
// the samples.
func (j *Run) compare(samples *benchfile.File) {
	r := j.Results
	for _, c := range r.Comparisons {
		jc := &Comparison{Finding: findings.Of(r, c), DBCPU: findings.In(r, c, units.DBCPU)}
		if c.Question == questions.Rows {
			jc.Shifts = map[string]stats.Estimate{}
			for _, u := range rowUnits {
				if e, err := stats.PairedShift(questions.Differences(r, c, u)); err == nil {
					jc.Shifts[u] = e
				}
			}
		}
		j.Comparisons[c] = jc
	}
	if len(r.Comparisons) > 0 {
		return
	}
	valid := map[*results.Variant]bool{}
	for _, v := range j.Valid {
		valid[v] = true
	}
	for _, p := range questions.Pairs(r, func(v *results.Variant) bool { return valid[v] }) {
		j.Unpaired = append(j.Unpaired, &Unpaired{Question: p.Question, Base: p.Base, Other: p.Other,
			QPS:    unpaired(samples, p.Base, p.Other, units.QPS),
			AppCPU: unpaired(samples, p.Base, p.Other, units.AppCPU)})
	}
}

// unpaired is the ratio of other's median to base's with the bootstrap interval of
// stats.ChangeOf, decided at findings.Margin; nil when a side lacks the unit.
func unpaired(f *benchfile.File, base, other *results.Variant, unit string) *results.Judged {
	a, b := f.Sample(base.Name, unit), f.Sample(other.Name, unit)
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	c, err := stats.ChangeOf(a, b, unit)
	if err != nil {
		return nil
	}
	e := stats.NoInterval(1 + c.Mid)
	e.Method, e.N = UnpairedMedians, min(len(a), len(b))
	if !math.IsInf(c.Lo, 0) && !math.IsInf(c.Hi, 0) && 1+c.Lo > 0 {
		e.Lo, e.Hi, e.Confidence = 1+c.Lo, 1+c.Hi, stats.Confidence
	}
	return findings.Decide(e, findings.Margin)
}
