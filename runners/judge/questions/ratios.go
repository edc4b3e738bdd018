package questions

import (
	"math"

	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// The figures of a pair are computed here rather than in package results, which only
// stores and loads: the runner (when to stop pairing), the report, compare and ab all
// take a comparison's per-pair figures and its estimate from these functions.

// Ratios are a comparison's per-pair ratios in unit, Other over Base: for each pair the
// geometric mean of Other's values over that of Base's. A pair a side of which lacks the
// unit, or has a value that is not positive, is left out.
func Ratios(r *results.Run, c *results.Comparison, unit string) []float64 {
	return perPair(r, c, unit, func(other, base float64) float64 { return other / base })
}

// Estimate is a comparison's estimate of Other ÷ Base in unit from its pairs: the
// typical per-pair ratio with its 95% interval (stats.PairedRatio). runners/judge/findings
// alone calls it, and judges what it gives once for every output.
func Estimate(r *results.Run, c *results.Comparison, unit string) (stats.Estimate, error) {
	return stats.PairedRatio(Ratios(r, c, unit))
}

// Differences are a comparison's per-pair differences in unit, Other less Base, each
// side the geometric mean of its values in the pair (as Ratios takes them): what a
// figure gained, such as a list's app CPU for 90 more rows.
func Differences(r *results.Run, c *results.Comparison, unit string) []float64 {
	return perPair(r, c, unit, func(other, base float64) float64 { return other - base })
}

// perPair applies f to each pair's geometric means in unit, Other's and Base's.
func perPair(r *results.Run, c *results.Comparison, unit string, f func(other, base float64) float64) []float64 {
	base, other := r.Variant(c.Base), r.Variant(c.Other)
	if base == nil || other == nil {
		return nil
	}
	var out []float64
	for _, p := range c.Pairs {
		b, okB := geomean(base, p.Base, unit)
		o, okO := geomean(other, p.Other, unit)
		if okB && okO {
			out = append(out, f(o, b))
		}
	}
	return out
}

// geomean is the geometric mean of v's values in unit over the repetitions reps.
func geomean(v *results.Variant, reps []int, unit string) (float64, bool) {
	if len(reps) == 0 {
		return 0, false
	}
	var logSum float64
	for _, n := range reps {
		rep := v.Rep(n)
		if rep == nil {
			return 0, false
		}
		x, ok := v.Value(rep, unit)
		if !ok || x <= 0 {
			return 0, false
		}
		logSum += math.Log(x)
	}
	return math.Exp(logSum / float64(len(reps))), true
}
