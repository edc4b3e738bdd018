package stats

import (
	"fmt"
	"math"
	"slices"
)

// TwoSampleEstimate is a ratio new/old of two independent samples with its 95% interval.
type TwoSampleEstimate struct {
	Method string  `json:"method"`
	Old    int     `json:"n_old"` // values on each side
	New    int     `json:"n_new"`
	Ratio  float64 `json:"ratio"`
	Lo     float64 `json:"lo"` // 0 without an interval
	Hi     float64 `json:"hi"` // +Inf without an interval
	// Confidence is the interval's exact coverage (>= 0.95), 0 without an interval.
	Confidence float64  `json:"confidence"`
	Warnings   []string `json:"warnings,omitempty"`
}

// HodgesLehmannTwoSample is the method name of TwoSampleRatio.
const HodgesLehmannTwoSample = "hodges-lehmann-two-sample"

// HasInterval reports whether both samples were large enough for a 95% interval.
func (e TwoSampleEstimate) HasInterval() bool { return e.Lo > 0 && !math.IsInf(e.Hi, 1) }

// Inverse is the estimate of old/new: the ratio and its interval inverted (the counts
// stay with their runs).
func (e TwoSampleEstimate) Inverse() TwoSampleEstimate {
	inv := e
	inv.Ratio = 1 / e.Ratio
	inv.Lo, inv.Hi = 0, math.Inf(1)
	if e.HasInterval() {
		inv.Lo, inv.Hi = 1/e.Hi, 1/e.Lo
	}
	return inv
}

// String formats the estimate as "0.6012 [0.5950, 0.6071] (n = 40+40)".
func (e TwoSampleEstimate) String() string {
	if !e.HasInterval() {
		return fmt.Sprintf("%.4f [no interval] (n = %d+%d)", e.Ratio, e.Old, e.New)
	}
	return fmt.Sprintf("%s (n = %d+%d)", four(e.Ratio, e.Lo, e.Hi), e.Old, e.New)
}

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
func TwoSampleRatio(old, new []float64) (TwoSampleEstimate, error) {
	lo, err := sampleLogs(old)
	if err != nil {
		return TwoSampleEstimate{}, fmt.Errorf("old: %w", err)
	}
	ln, err := sampleLogs(new)
	if err != nil {
		return TwoSampleEstimate{}, fmt.Errorf("new: %w", err)
	}
	diffs := make([]float64, 0, len(lo)*len(ln))
	for _, a := range lo {
		for _, b := range ln {
			diffs = append(diffs, b-a)
		}
	}
	slices.Sort(diffs)
	e := TwoSampleEstimate{Method: HodgesLehmannTwoSample, Old: len(lo), New: len(ln), Ratio: math.Exp(sortedMedian(diffs)), Hi: math.Inf(1)}
	k, conf := mannWhitneyK(len(lo), len(ln), Confidence)
	if k == 0 {
		e.Warnings = append(e.Warnings, fmt.Sprintf("%d and %d values: too few for a 95%% interval (4 on each side suffice)", len(lo), len(ln)))
		return e, nil
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
