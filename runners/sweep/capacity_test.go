package sweep

import (
	"testing"

	"dbbench/runners/results"
)

// A point's capacity is the median of its searches with the 95% interval of that
// median: for six searches, their lowest and highest (97%).
func TestSettleTakesTheMedianOfTheSearches(t *testing.T) {
	v := &results.Variant{Capacity: &results.Capacity{SLO: 0.05}}
	var all []*search
	for i, best := range []float64{1000, 1100, 950, 1050, 1200, 1000} {
		all = append(all, &search{v: v, n: i + 1, best: best})
	}
	other := &results.Variant{Capacity: &results.Capacity{}}
	all = append(all, &search{v: other, n: 1, best: 5})
	settle(v.Capacity, all)
	c := v.Capacity
	if len(c.Searches) != 6 || c.Rate != 1025 || c.Lo != 950 || c.Hi != 1200 {
		t.Fatalf("capacity %+v: want the median 1025 of six searches in [950, 1200]", c)
	}
	// Too few searches for an interval: the median stands, the interval is open.
	few := &results.Variant{Capacity: &results.Capacity{}}
	settle(few.Capacity, []*search{{v: few, best: 10}, {v: few, best: 20}})
	if few.Capacity.Rate != 15 || few.Capacity.Lo != 0 || few.Capacity.Hi != 0 {
		t.Fatalf("two searches: %+v", few.Capacity)
	}
}

func TestSlicesCountsEveryProbe(t *testing.T) {
	pl := PoolPlan{CeilingReps: 2, Searches: 6, Probes: 4}
	if got := pl.Slices(10); got != 10*(2+24) {
		t.Fatalf("Slices(10) = %d, want 260", got)
	}
}
