package stats

import (
	"fmt"
	"math"
	"slices"
)

// MinPairs is the smallest number of pairs with a two-sided 95% interval: with n pairs
// the widest distribution-free interval covers only 1 - 2^(1-n), 0.9375 for n = 5.
const MinPairs = 6

// Method names of an Estimate.
const (
	HodgesLehmann   = "hodges-lehmann"   // PairedRatio
	BootstrapMedian = "bootstrap-median" // BootstrapMedianRatio
)

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
// is symmetric about its centre; Value then estimates exp(centre), the median ratio.
// It needs n >= MinPairs; with fewer it returns the estimate without an interval (see
// Estimate); no ratios is an error. Ratios must be finite and > 0. ratios is not
// modified. The cost is O(n² log n) time and n(n+1)/2 floats of memory: fine up to a
// few thousand pairs.
func PairedRatio(ratios []float64) (Estimate, error) {
	logs, err := logRatios(ratios)
	if err != nil {
		return Estimate{}, err
	}
	walsh := walshAverages(logs)
	e := Estimate{Method: HodgesLehmann, N: len(logs), Value: math.Exp(sortedMedian(walsh))}
	k, conf := signedRankK(len(logs), Confidence)
	if k == 0 {
		return e.withoutInterval(tooFewPairs(e.N)), nil
	}
	e.Lo, e.Hi = math.Exp(walsh[k-1]), math.Exp(walsh[len(walsh)-k])
	e.Confidence = conf
	return e, nil
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
