package compare

import (
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// quotient is a/b for two independent estimates, its interval by interval arithmetic:
// [a.Lo/b.Hi, a.Hi/b.Lo]. On the log scale the half-widths add, where for independent
// normal errors they would add in quadrature: the interval is wider than a 95% one
// needs to be (its coverage is at least 95% when each is, and at least 90% however the
// two depend on each other, by Bonferroni). Never calling a change that is not there is
// worth more here than catching the smallest real one.
func quotient(a, b stats.Estimate) stats.Estimate {
	q := stats.NoInterval(a.Value / b.Value)
	if a.HasInterval() && b.HasInterval() {
		q.Lo, q.Hi = a.Lo/b.Hi, a.Hi/b.Lo
	}
	return q
}

// change turns an estimate of new/old into a relative change; without an interval its
// bounds stay infinite (an estimate's −Inf and +Inf less 1; null in JSON).
func change(e stats.Estimate) Change {
	return Change{Lo: Num(e.Lo - 1), Mid: Num(e.Value - 1), Hi: Num(e.Hi - 1)}
}

// judge is the verdict on an estimate of new/old in a unit that is better in direction
// dir: improved or regressed only when the whole interval lies past the noise margin
// (stats.Estimate.Past, what dbbench ab's gate reads too), else unchanged. An estimate
// without an interval is unchanged.
func judge(e stats.Estimate, dir units.Direction, margin float64) Outcome {
	switch {
	case !e.Past(margin):
		return Unchanged
	case (e.Value > 1) == (dir == units.Higher):
		return Improved
	}
	return Regressed
}
