package stats

import (
	"fmt"
	"math"
)

// ShiftEstimate is the estimated difference B − A of a comparison measured as pairs,
// with its 95% confidence interval: what a figure gained, where PairedRatio says by
// how much it was multiplied.
type ShiftEstimate struct {
	Method string // HodgesLehmann
	N      int    // pairs
	Shift  float64
	// [Lo, Hi] is the confidence interval of Shift; with fewer than MinPairs pairs
	// there is none: Lo = −Inf, Hi = +Inf, HasInterval() is false and Warnings says so.
	Lo, Hi     float64
	Confidence float64 // the interval's exact coverage, 0 without an interval
	Warnings   []string
}

// PairedShift estimates the difference of a comparison from n per-pair differences
// d_i = B_i − A_i, each pair measured close together in time: the Hodges–Lehmann
// estimator (the median of the Walsh averages) with the Wilcoxon signed-rank interval,
// exactly as PairedRatio does for log ratios, on the differences themselves. Its
// coverage holds for any continuous distribution of the differences symmetric about
// its centre. No differences is an error; they must be finite.
func PairedShift(diffs []float64) (ShiftEstimate, error) {
	if len(diffs) == 0 {
		return ShiftEstimate{}, fmt.Errorf("paired differences: none given")
	}
	for i, d := range diffs {
		if math.IsNaN(d) || math.IsInf(d, 0) {
			return ShiftEstimate{}, fmt.Errorf("paired differences: difference %d is %v, want a finite number", i+1, d)
		}
	}
	walsh := walshAverages(diffs)
	e := ShiftEstimate{Method: HodgesLehmann, N: len(diffs), Shift: sortedMedian(walsh), Lo: math.Inf(-1), Hi: math.Inf(1)}
	k, conf := signedRankK(len(diffs), Confidence)
	if k == 0 {
		e.Warnings = append(e.Warnings, fmt.Sprintf("need >= %d pairs for a 95%% interval, have %d", MinPairs, e.N))
		return e, nil
	}
	e.Lo, e.Hi, e.Confidence = walsh[k-1], walsh[len(walsh)-k], conf
	return e, nil
}

// HasInterval reports whether there were enough pairs for a finite interval.
func (e ShiftEstimate) HasInterval() bool { return !math.IsInf(e.Lo, 0) && !math.IsInf(e.Hi, 0) }

// Per divides the estimate and its interval by n > 0: a difference of 90 more rows
// per request, per row.
func (e ShiftEstimate) Per(n float64) ShiftEstimate {
	e.Shift, e.Lo, e.Hi = e.Shift/n, e.Lo/n, e.Hi/n
	return e
}
