package stats

import (
	"math"
	"slices"
)

// Mean is the arithmetic mean of a sample with its 95% interval. A queueing model needs
// the mean of a hold time, not its median: the busy time of a connection is the sum of
// its holds.
type Mean struct {
	N              int
	Mean, Lo, Hi   float64
	P99            float64 // the sample's 99th percentile (nearest rank)
	Infinite, Void bool    // Void: no values; Infinite: too few for an interval (Lo, Hi are ±Inf)
}

// MeanOf computes the mean of xs and its 95% interval by the normal approximation,
// mean ± 1.96·s/√n, fair from about 30 values (central limit); below 2 values the
// interval is infinite, for none everything is NaN and Void is set.
func MeanOf(xs []float64) Mean {
	m := Mean{N: len(xs)}
	if len(xs) == 0 {
		nan := math.NaN()
		m.Mean, m.Lo, m.Hi, m.P99, m.Void = nan, nan, nan, nan, true
		return m
	}
	for _, x := range xs {
		m.Mean += x
	}
	m.Mean /= float64(len(xs))
	s := slices.Sorted(slices.Values(xs))
	m.P99 = s[max(0, int(math.Ceil(0.99*float64(len(s))))-1)]
	if len(xs) < 2 {
		m.Lo, m.Hi, m.Infinite = math.Inf(-1), math.Inf(1), true
		return m
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m.Mean) * (x - m.Mean)
	}
	half := normalQuantile(1-(1-Confidence)/2) * math.Sqrt(ss/float64(len(xs)-1)/float64(len(xs)))
	m.Lo, m.Hi = m.Mean-half, m.Mean+half
	return m
}
