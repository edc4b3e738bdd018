package stats

import (
	"fmt"
	"math"
	"slices"

	"dbbench/runners/units"
)

// MinPairs is the smallest number of pairs with a two-sided 95% interval: with n pairs
// the widest distribution-free interval covers only 1 - 2^(1-n), 0.9375 for n = 5.
const MinPairs = 6

// Method names of a RatioEstimate.
const (
	HodgesLehmann   = "hodges-lehmann"   // PairedRatio
	BootstrapMedian = "bootstrap-median" // BootstrapMedianRatio
)

// RatioEstimate is the estimated ratio B/A of a comparison measured as pairs, with its
// 95% confidence interval.
type RatioEstimate struct {
	Method string // HodgesLehmann or BootstrapMedian
	N      int    // pairs
	Ratio  float64
	// [Lo, Hi] is the confidence interval of Ratio. With fewer than MinPairs pairs there
	// is none: Lo = 0, Hi = +Inf, HasInterval() is false and Warnings says so.
	Lo, Hi float64
	// Confidence is the interval's coverage: exact for HodgesLehmann (the discrete
	// level actually reached, >= 0.95), nominal for BootstrapMedian, 0 without an
	// interval.
	Confidence float64
	Warnings   []string
}

// PairedRatio estimates the ratio of a comparison from n paired ratios r_i = B_i/A_i,
// each pair measured close together in time so that the host's drift cancels in it.
//
// Method: the Hodges–Lehmann estimator on the log ratios x_i = ln r_i, the median of
// the n(n+1)/2 Walsh averages (x_i + x_j)/2, i <= j, with the distribution-free interval
// of the Wilcoxon signed-rank test, from the k-th smallest to the k-th largest Walsh
// average, k from the exact null distribution for n <= 50 and the normal approximation
// beyond (see signedRankK), all exponentiated back to ratios. References: Hodges &
// Lehmann (1963), Ann. Math. Statist. 34:598-611; Bauer (1972), JASA 67:687-690;
// Hollander & Wolfe, Nonparametric Statistical Methods, ch. 3.
//
// The interval's coverage holds for any continuous distribution of the log ratios that
// is symmetric about its centre; Ratio then estimates exp(centre), the median ratio.
// It needs n >= MinPairs; with fewer it returns the estimate without an interval (see
// RatioEstimate); no ratios is an error. Ratios must be finite and > 0. ratios is not
// modified. The cost is O(n² log n) time and n(n+1)/2 floats of memory: fine up to a
// few thousand pairs.
func PairedRatio(ratios []float64) (RatioEstimate, error) {
	logs, err := logRatios(ratios)
	if err != nil {
		return RatioEstimate{}, err
	}
	walsh := walshAverages(logs)
	e := RatioEstimate{Method: HodgesLehmann, N: len(logs), Ratio: math.Exp(sortedMedian(walsh))}
	k, conf := signedRankK(len(logs), Confidence)
	if k == 0 {
		return e.withoutInterval(), nil
	}
	e.Lo, e.Hi = math.Exp(walsh[k-1]), math.Exp(walsh[len(walsh)-k])
	e.Confidence = conf
	return e, nil
}

// HasInterval reports whether there were enough pairs for a finite interval.
func (e RatioEstimate) HasInterval() bool { return e.Lo > 0 && !math.IsInf(e.Hi, 1) }

// ExcludesOne reports whether the interval lies wholly above or below 1: the two sides
// differ, at the interval's confidence.
func (e RatioEstimate) ExcludesOne() bool { return e.HasInterval() && (e.Lo > 1 || e.Hi < 1) }

// HalfWidth is the interval's half-width as a fraction, sqrt(Hi/Lo) - 1: the interval is
// Ratio·[1/(1+h), 1+h] when it is symmetric on the log scale, which the Hodges–Lehmann
// one nearly is. It measures the log-scale width, so swapping A and B leaves it
// unchanged. +Inf without an interval. The stopping rule "narrower than ±2%" is
// HalfWidth() <= 0.02.
func (e RatioEstimate) HalfWidth() float64 {
	if !e.HasInterval() {
		return math.Inf(1)
	}
	return math.Sqrt(e.Hi/e.Lo) - 1
}

// String formats the estimate as "1.0630 [1.0570, 1.0690] (n = 30, 95.1%)".
func (e RatioEstimate) String() string {
	if !e.HasInterval() {
		return fmt.Sprintf("%.4f [no interval] (n = %d)", e.Ratio, e.N)
	}
	return fmt.Sprintf("%s (n = %d, %.1f%%)", four(e.Ratio, e.Lo, e.Hi), e.N, 100*e.Confidence)
}

// four is an estimate to four decimals, as the String methods print it.
func four(x, lo, hi float64) string {
	f := func(v float64) string { return fmt.Sprintf("%.4f", v) }
	return units.Estimate(f(x), f(lo), f(hi))
}

func (e RatioEstimate) withoutInterval() RatioEstimate {
	e.Lo, e.Hi, e.Confidence = 0, math.Inf(1), 0
	e.Warnings = append(e.Warnings, fmt.Sprintf("need >= %d pairs for a 95%% interval, have %d", MinPairs, e.N))
	return e
}

// logRatios checks ratios and returns their natural logarithms.
func logRatios(ratios []float64) ([]float64, error) {
	if len(ratios) == 0 {
		return nil, fmt.Errorf("paired ratios: none given")
	}
	logs, err := positiveLogs(ratios, "ratio")
	if err != nil {
		return nil, fmt.Errorf("paired ratios: %w", err)
	}
	return logs, nil
}

// positiveLogs returns the natural logarithms of xs, each finite and > 0; what names
// one value in the error, "ratio 3 is 0".
func positiveLogs(xs []float64, what string) ([]float64, error) {
	out := make([]float64, len(xs))
	for i, x := range xs {
		if !(x > 0) || math.IsInf(x, 1) {
			return nil, fmt.Errorf("%s %d is %v, want a finite number > 0", what, i+1, x)
		}
		out[i] = math.Log(x)
	}
	return out, nil
}

// walshAverages returns the n(n+1)/2 averages (x_i + x_j)/2, i <= j, sorted.
func walshAverages(x []float64) []float64 {
	out := make([]float64, 0, len(x)*(len(x)+1)/2)
	for i := range x {
		for j := i; j < len(x); j++ {
			out = append(out, (x[i]+x[j])/2)
		}
	}
	slices.Sort(out)
	return out
}
