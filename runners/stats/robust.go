package stats

import (
	"math"
	"slices"
)

// madScale makes a median absolute deviation a normal standard deviation: for normal
// data, 1.4826 × MAD estimates σ (Rousseeuw & Croux, 1993).
const madScale = 1.4826

// RobustSD is 1.4826 × the median absolute deviation of xs about their median: a
// standard deviation that a few values far off barely move. NaN for no values, 0 for
// one. xs is not modified.
func RobustSD(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	mid := sortedMedian(s)
	dev := make([]float64, len(s))
	for i, x := range s {
		dev[i] = math.Abs(x - mid)
	}
	slices.Sort(dev)
	return madScale * sortedMedian(dev)
}
