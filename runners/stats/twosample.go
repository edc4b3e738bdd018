package stats

import (
	"fmt"
	"math"
	"slices"
)

// HodgesLehmannTwoSample is the method name of TwoSampleRatio.
const HodgesLehmannTwoSample = "hodges-lehmann-two-sample"

// TwoSampleRatio estimates how much larger new's values are than old's, as a ratio,
// from two independent samples (two runs, or the two sides of a comparison measured
// apart).
//
// Method: the two-sample Hodges–Lehmann estimator of a shift on the log values, the
// median of the m·n differences ln(new_j) − ln(old_i), with the distribution-free
// interval of Moses, from the k-th smallest to the k-th largest difference, k from the
// exact null distribution of the Mann–Whitney U statistic for m + n <= exactMax and its
// normal approximation beyond, all exponentiated back to a ratio. References: Hodges &
// Lehmann (1963), Ann. Math. Statist. 34:598-611; Moses, in Walker & Lev, Statistical
// Inference (1953); Hollander & Wolfe, Nonparametric Statistical Methods, §4.3.
//
// It is the two-sample counterpart of PairedRatio: no normality (trial and slice
// times have heavy tails), exact coverage when the two samples differ by a shift of
// their log values, deterministic (no resampling), and it inverts Mann–Whitney's test,
// which benchstat uses: the interval excludes 1 exactly when the test rejects. Values
// must be finite and > 0, and no values on either side is an error; neither slice is
// modified. Without enough values for a 95% interval (4 on each side, or 3 against 5
// and more) the estimate has none.
func TwoSampleRatio(old, new []float64) (Estimate, error) {
	lo, err := sampleLogs(old)
	if err != nil {
		return Estimate{}, fmt.Errorf("old: %w", err)
	}
	ln, err := sampleLogs(new)
	if err != nil {
		return Estimate{}, fmt.Errorf("new: %w", err)
	}
	diffs := make([]float64, 0, len(lo)*len(ln))
	for _, a := range lo {
		for _, b := range ln {
			diffs = append(diffs, b-a)
		}
	}
	slices.Sort(diffs)
	e := Estimate{Method: HodgesLehmannTwoSample, N: len(lo) + len(ln), Value: math.Exp(sortedMedian(diffs))}
	k, conf := mannWhitneyK(len(lo), len(ln), Confidence)
	if k == 0 {
		return e.withoutInterval(fmt.Sprintf("%d and %d values: too few for a 95%% interval (4 on each side suffice)", len(lo), len(ln))), nil
	}
	e.Lo, e.Hi, e.Confidence = math.Exp(diffs[k-1]), math.Exp(diffs[len(diffs)-k]), conf
	return e, nil
}

// sampleLogs checks one side of TwoSampleRatio and returns its natural logarithms.
func sampleLogs(xs []float64) ([]float64, error) {
	if len(xs) == 0 {
		return nil, fmt.Errorf("no values")
	}
	return positiveLogs(xs, "value")
}
