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

// Estimate is the paired estimate of the comparison's ratios: the Hodges–Lehmann ratio
// of its pairs with an interval from six pairs on, an error with none.
func TestEstimateReadsThePairs(t *testing.T) {
	r := &results.Run{Variants: []*results.Variant{{Key: "a"}, {Key: "b"}}}
	c := &results.Comparison{Base: "a", Other: "b"}
	for i, ratio := range []float64{1.1, 1.2, 1.15, 1.1, 1.2, 1.15, 1.12} {
		r.Variants[0].Reps = append(r.Variants[0].Reps, &results.Repetition{Rep: i + 1, QPS: 100})
		r.Variants[1].Reps = append(r.Variants[1].Reps, &results.Repetition{Rep: i + 1, QPS: 100 * ratio})
		c.Pairs = append(c.Pairs, results.Pair{Base: []int{i + 1}, Other: []int{i + 1}})
	}
	e, err := Estimate(r, c, units.QPS)
	if err != nil || e.N != 7 || !e.HasInterval() || e.Value < 1.14 || e.Value > 1.16 || e.Lo > 1.12 || e.Hi < 1.15 {
		t.Errorf("Estimate = %+v, %v; want about 1.15 from 7 pairs with its interval", e, err)
	}
	if _, err := Estimate(r, &results.Comparison{Base: "a", Other: "b"}, units.QPS); err == nil {
		t.Error("an estimate from no pair")
	}
}
