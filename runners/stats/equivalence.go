package stats

import (
	"fmt"
	"math"
)

// Decision is what a paired comparison's interval says about the ratio, given an
// equivalence margin.
type Decision string

const (
	// Different: the interval excludes 1 and reaches beyond the margin.
	Different Decision = "different"
	// DifferentWithinMargin: the interval excludes 1 but lies inside the margin: a real
	// difference, too small to matter.
	DifferentWithinMargin Decision = "different, within margin"
	// Equivalent: the interval contains 1 and lies inside the margin.
	Equivalent Decision = "equivalent"
	// Undecided: the interval contains 1 and reaches beyond the margin (or there is no
	// interval): more pairs are needed.
	Undecided Decision = "undecided"
)

// Past says the whole interval lies past the margin m, on either side of 1: the figure
// changed by more than m at the interval's confidence. It is what a gate fails on
// (dbbench ab and compare --fail-on regression); an estimate without an interval is
// never past. A ratio past the margin is always Different.
func (e Estimate) Past(m float64) bool {
	return e.HasInterval() && (e.Lo > 1+m || e.Hi < 1/(1+m))
}

// Decide classifies the estimate against a margin m (a fraction: 0.02 for ±2%), the
// four outcomes of an interval read both as a test and as an equivalence test
// (Schuirmann 1987, J. Pharmacokin. Biopharm. 15:657-680, the two one-sided tests; a
// 95% interval gives each of them level 2.5%). The margin is the log-symmetric band
// [1/(1+m), 1+m], the same log-scale measure as HalfWidth, so that swapping A and B
// never changes the decision.
func (e Estimate) Decide(margin float64) (Decision, error) {
	if !(margin > 0) || math.IsInf(margin, 1) {
		return "", fmt.Errorf("margin %v: want a fraction > 0, e.g. 0.02 for ±2%%", margin)
	}
	if !e.HasInterval() {
		return Undecided, nil
	}
	inside := e.Lo >= 1/(1+margin) && e.Hi <= 1+margin
	switch {
	case e.ExcludesOne() && inside:
		return DifferentWithinMargin, nil
	case e.ExcludesOne():
		return Different, nil
	case inside:
		return Equivalent, nil
	}
	return Undecided, nil
}
