package stats

import (
	"dbbench/runners/units"

	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Bootstrap parameters of the change interval. The seed is fixed so that the same two
// samples always give the same interval.
const (
	resamples = 10000
	seed1     = 0x6462_6265_6e63_6831 // "dbbench1"
	seed2     = 0x5349_4e47_4c45_524f // "SINGLERO"
)

// Change is a Comparison with a criterion-style interval of the relative change. It
// decides nothing: runners/judge/findings judges an interval, at one margin.
type Change struct {
	Comparison
	// Mid is the relative change of the centers, New.Center/Old.Center - 1 (the number
	// benchstat prints as delta). [Lo, Hi] is its 95% percentile-bootstrap interval:
	// the two samples are resampled with replacement (fixed seed) and the ratio of their
	// medians taken each time. Lo and Hi are ±Inf when either sample is too small for
	// its own confidence interval. For exact units they span the values' ranges.
	Lo, Mid, Hi float64
}

// ChangeOf compares old and new in unit: benchstat's test and delta, and the change's
// interval. No values on either side, or a unit with no direction of improvement, is
// an error.
func ChangeOf(old, new []float64, unit string) (Change, error) {
	if units.Better(unit) == units.Unknown {
		return Change{}, fmt.Errorf("unit %q: unknown direction of improvement, want a rate (…/s) or a cost per request (…/op)", unit)
	}
	cmp, err := Compare(old, new, unit)
	if err != nil {
		return Change{}, err
	}
	c := Change{Comparison: cmp, Mid: cmp.Ratio - 1}

	switch {
	case Exact(unit):
		c.Lo = Ratio(cmp.Old.Hi, cmp.New.Lo) - 1
		c.Hi = Ratio(cmp.Old.Lo, cmp.New.Hi) - 1
	case !cmp.Old.HasInterval() || !cmp.New.HasInterval():
		c.Lo, c.Hi = math.Inf(-1), math.Inf(1)
		c.Warnings = append(c.Warnings, "no change interval: each side needs enough samples for its own confidence interval")
	default:
		c.Lo, c.Hi = bootstrap(old, new)
	}

	return c, nil
}

// String formats the change as criterion does, with benchstat's p and n:
// "[-3.10% -2.05% -0.90%] (p = 0.002, n = 10)", then any warnings.
func (c Change) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s %s %s] (", units.SignedPercent(c.Lo), units.SignedPercent(c.Mid), units.SignedPercent(c.Hi))
	if Exact(c.Unit) {
		b.WriteString("exact, ")
	} else {
		fmt.Fprintf(&b, "p = %.3f, ", c.P)
	}
	if c.Old.N == c.New.N {
		fmt.Fprintf(&b, "n = %d", c.Old.N)
	} else {
		fmt.Fprintf(&b, "n = %d+%d", c.Old.N, c.New.N)
	}
	b.WriteString(")")
	if len(c.Warnings) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(c.Warnings, "; "))
	}
	return b.String()
}

// bootstrap returns the 95% percentile interval of median(new*)/median(old*) - 1 over
// resamples of both samples.
func bootstrap(old, new []float64) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(seed1, seed2))
	oldBuf := make([]float64, len(old))
	newBuf := make([]float64, len(new))
	changes := make([]float64, resamples)
	for i := range changes {
		changes[i] = Ratio(resampleMedian(rng, old, oldBuf), resampleMedian(rng, new, newBuf)) - 1
	}
	slices.Sort(changes)
	k := int(math.Round((1 - Confidence) / 2 * resamples)) // resamples below lo, and above hi
	return changes[k], changes[resamples-1-k]
}

// resampleMedian fills buf with len(xs) draws from xs and returns their median.
func resampleMedian(rng *rand.Rand, xs, buf []float64) float64 {
	for i := range buf {
		buf[i] = xs[rng.IntN(len(xs))]
	}
	slices.Sort(buf)
	return sortedMedian(buf)
}
