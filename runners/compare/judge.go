package compare

import (
	"math"

	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// est is a ratio and its interval, for arithmetic; lo = 0 and hi = +Inf when there is
// no interval.
type est struct{ ratio, lo, hi float64 }

func (e est) hasInterval() bool { return e.lo > 0 && !math.IsInf(e.hi, 1) }

func fromTwoSample(e stats.TwoSampleEstimate) (est, Estimate) {
	return est{e.Ratio, e.Lo, e.Hi}, Estimate{Method: e.Method, N: e.Old + e.New, Ratio: Num(e.Ratio), Lo: Num(e.Lo), Hi: Num(e.Hi), Warnings: e.Warnings}
}

func fromPaired(e stats.RatioEstimate) (est, Estimate) {
	return est{e.Ratio, e.Lo, e.Hi}, Estimate{Method: e.Method, N: e.N, Ratio: Num(e.Ratio), Lo: Num(e.Lo), Hi: Num(e.Hi), Warnings: e.Warnings}
}

// quotient is a/b for two independent estimates, its interval by interval arithmetic:
// [a.lo/b.hi, a.hi/b.lo]. On the log scale the half-widths add, where for independent
// normal errors they would add in quadrature: the interval is wider than a 95% one
// needs to be (its coverage is at least 95% when each is, and at least 90% however the
// two depend on each other, by Bonferroni). Never calling a change that is not there is
// worth more here than catching the smallest real one.
func quotient(a, b est) est {
	q := est{ratio: a.ratio / b.ratio, lo: 0, hi: math.Inf(1)}
	if a.hasInterval() && b.hasInterval() {
		q.lo, q.hi = a.lo/b.hi, a.hi/b.lo
	}
	return q
}

// change turns an estimate of new/old into a relative change; without an interval its
// bounds are infinite (null in JSON).
func change(e est) Change {
	if !e.hasInterval() {
		return Change{Lo: Num(math.Inf(-1)), Mid: Num(e.ratio - 1), Hi: Num(math.Inf(1))}
	}
	return Change{Lo: Num(e.lo - 1), Mid: Num(e.ratio - 1), Hi: Num(e.hi - 1)}
}

// judge is the verdict on an estimate of new/old in a unit that is better in direction
// dir: improved or regressed only when the whole interval lies beyond the noise band
// [1/(1+noise), 1+noise] (symmetric on the log scale, as stats.Decide's margin), else
// unchanged. An estimate without an interval is unchanged.
func judge(e est, dir units.Direction, noise float64) Verdict {
	if !e.hasInterval() {
		return Unchanged
	}
	up, down := e.lo > 1+noise, e.hi < 1/(1+noise)
	switch {
	case up && dir == units.Higher, down && dir == units.Lower:
		return Improved
	case up || down:
		return Regressed
	}
	return Unchanged
}
