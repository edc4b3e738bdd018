package stats

import (
	"fmt"
	"math"
)

// PairedShift estimates the difference of a comparison from n per-pair differences
// d_i = B_i − A_i, each pair measured close together in time: the Hodges–Lehmann
// estimator (the median of the Walsh averages) with the Wilcoxon signed-rank interval,
// exactly as PairedRatio does for log ratios, on the differences themselves. Its
// coverage holds for any continuous distribution of the differences symmetric about
// its centre. No differences is an error; they must be finite.
func PairedShift(diffs []float64) (Estimate, error) {
	if len(diffs) == 0 {
		return Estimate{}, fmt.Errorf("paired differences: none given")
	}
	for i, d := range diffs {
		if math.IsNaN(d) || math.IsInf(d, 0) {
			return Estimate{}, fmt.Errorf("paired differences: difference %d is %v, want a finite number", i+1, d)
		}
	}
	walsh := walshAverages(diffs)
	e := Estimate{Method: HodgesLehmann, N: len(diffs), Value: sortedMedian(walsh), Shift: true}
	k, conf := signedRankK(len(diffs), Confidence)
	if k == 0 {
		return e.withoutInterval(tooFewPairs(e.N)), nil
	}
	e.Lo, e.Hi, e.Confidence = walsh[k-1], walsh[len(walsh)-k], conf
	return e, nil
}
