package questions

import (
	"math"
	"testing"

	"dbbench/runners/results"
	"dbbench/runners/units"
)

// A comparison's per-pair differences are Other less Base pair by pair, as its ratios
// are Other over Base.
func TestRatiosAndDifferences(t *testing.T) {
	rep := func(n int, cpu float64) *results.Repetition { return &results.Repetition{Rep: n, QPS: 1, AppCPU: cpu} }
	r := &results.Run{Variants: []*results.Variant{
		{Key: "a", Reps: []*results.Repetition{rep(1, 10e-6), rep(2, 12e-6)}},
		{Key: "b", Reps: []*results.Repetition{rep(1, 19e-6), rep(2, 30e-6)}},
	}}
	c := &results.Comparison{Base: "a", Other: "b", Pairs: []results.Pair{{Base: []int{1}, Other: []int{1}}, {Base: []int{2}, Other: []int{2}}}}
	got := Differences(r, c, units.AppCPU)
	if len(got) != 2 || math.Abs(got[0]-9e-6) > 1e-12 || math.Abs(got[1]-18e-6) > 1e-12 {
		t.Errorf("Differences = %v, want [9e-06 1.8e-05]", got)
	}
	got = Ratios(r, c, units.AppCPU)
	if len(got) != 2 || math.Abs(got[0]-1.9) > 1e-12 || math.Abs(got[1]-2.5) > 1e-12 {
		t.Errorf("Ratios = %v, want [1.9 2.5]", got)
	}
}
