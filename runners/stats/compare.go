package stats

import (
	"fmt"
	"math"
)

// Comparison tells whether two samples of one unit differ, as benchstat's delta column
// does.
type Comparison struct {
	Unit     string
	Old, New Summary
	// P is the Mann-Whitney U test's p-value (two-sided). Exact units are not tested:
	// P is 0 and Significant says whether their values differ.
	P           float64
	Alpha       float64
	Significant bool
	// Ratio is New.Center / Old.Center: 1 when both are 0, ±Inf when only Old is 0.
	Ratio float64
	// Delta is benchstat's delta column: "~" when not significant, else "+12.34%"
	// ("?" when Old.Center is 0).
	Delta string
	// Warnings gathers the test's warnings (too few samples to detect a difference,
	// all values equal) and the summaries' ("old: …", "new: …").
	Warnings []string
}

// Compare summarizes old and new and tests whether they come from the same
// distribution, with benchstat's method and defaults. No values on either side is an
// error.
func Compare(old, new []float64, unit string) (Comparison, error) {
	oldSample, err := newSample(old, unit)
	if err != nil {
		return Comparison{}, fmt.Errorf("old: %w", err)
	}
	newSample, err := newSample(new, unit)
	if err != nil {
		return Comparison{}, fmt.Errorf("new: %w", err)
	}
	oldSum, newSum := summarize(oldSample, unit), summarize(newSample, unit)

	cmp := assumption(unit).Compare(oldSample, newSample)
	c := Comparison{
		Unit:  unit,
		Old:   oldSum,
		New:   newSum,
		P:     cmp.P,
		Alpha: Alpha,
		Ratio: Ratio(oldSum.Center, newSum.Center),
		// FormatDelta prints "~" unless P <= its Alpha; for exact units benchmath sets
		// both to 0, so a delta is always printed, as benchstat does.
		Delta: cmp.FormatDelta(oldSum.Center, newSum.Center),
	}
	if Exact(unit) {
		c.Significant = oldSum.Center != newSum.Center
	} else {
		c.Significant = c.Delta != "~"
	}
	c.Warnings = messages(cmp.Warnings)
	for _, w := range oldSum.Warnings {
		c.Warnings = append(c.Warnings, "old: "+w)
	}
	for _, w := range newSum.Warnings {
		c.Warnings = append(c.Warnings, "new: "+w)
	}
	return c, nil
}

// Ratio is new/old, defined for a zero old: 1 when both are equal (0 and 0), ±Inf when
// only old is 0 (a count that appeared). Counts such as errors/op or roundtrips/op of
// the hello variant are legitimately 0.
func Ratio(old, new float64) float64 {
	switch {
	case old == new:
		return 1
	case old == 0:
		return math.Inf(int(math.Copysign(1, new)))
	}
	return new / old
}
