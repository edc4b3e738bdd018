package stats

import (
	"math"
	"slices"
)

// Empty input: a function here that returns one number (Median, RobustSD) returns NaN
// for no values, so a missing figure never passes for 0; one that returns an estimate
// with an error (Summarize, Compare, ChangeOf, PairedRatio, BootstrapMedianRatio,
// TwoSampleRatio, TheilSen) returns an error.

// Median is the middle value of xs, the mean of the middle two for an even count; NaN
// for no values. xs is not modified.
func Median(xs []float64) float64 {
	return sortedMedian(slices.Sorted(slices.Values(xs)))
}

// sortedMedian is Median of values already sorted, for the estimators that sort anyway.
func sortedMedian(sorted []float64) float64 {
	n := len(sorted)
	switch {
	case n == 0:
		return math.NaN()
	case n%2 == 1:
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
