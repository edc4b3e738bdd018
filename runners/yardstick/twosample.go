package yardstick

import (
	"fmt"
	"math"
	"slices"
	"sync"
)

// Estimate is a ratio new/old of two independent samples with its 95% interval.
type Estimate struct {
	Method string  `json:"method"`
	Old    int     `json:"n_old"` // values on each side
	New    int     `json:"n_new"`
	Ratio  float64 `json:"ratio"`
	Lo     float64 `json:"lo"` // 0 without an interval
	Hi     float64 `json:"hi"` // +Inf without an interval
	// Confidence is the interval's exact coverage (>= 0.95), 0 without an interval.
	Confidence float64  `json:"confidence"`
	Warnings   []string `json:"warnings,omitempty"`
}

// TwoSample is the method name of TwoSampleRatio.
const TwoSample = "hodges-lehmann-two-sample"

// level is the confidence of every interval here, as in package stats.
const level = 0.95

// HasInterval reports whether both samples were large enough for a 95% interval.
func (e Estimate) HasInterval() bool { return e.Lo > 0 && !math.IsInf(e.Hi, 1) }

// Inverse is the estimate of old/new: the ratio and its interval inverted (the counts
// stay with their runs).
func (e Estimate) Inverse() Estimate {
	inv := e
	inv.Ratio = 1 / e.Ratio
	inv.Lo, inv.Hi = 0, math.Inf(1)
	if e.HasInterval() {
		inv.Lo, inv.Hi = 1/e.Hi, 1/e.Lo
	}
	return inv
}

// String formats the estimate as "0.6012 [0.5950, 0.6071] (n = 40+40)".
func (e Estimate) String() string {
	if !e.HasInterval() {
		return fmt.Sprintf("%.4f [no interval] (n = %d+%d)", e.Ratio, e.Old, e.New)
	}
	return fmt.Sprintf("%.4f [%.4f, %.4f] (n = %d+%d)", e.Ratio, e.Lo, e.Hi, e.Old, e.New)
}

// TwoSampleRatio estimates how much larger new's values are than old's, as a ratio,
// from two independent samples (two runs, or the two sides of a comparison measured
// apart).
//
// Method: the two-sample Hodges–Lehmann estimator of a shift on the log values, the
// median of the m·n differences ln(new_j) − ln(old_i), with the distribution-free
// interval of Moses, from the k-th smallest to the k-th largest difference, k from the
// exact null distribution of the Mann–Whitney U statistic for m + n <= exactMax and its
// normal approximation beyond, all exponentiated back to a ratio. References: Hodges &
// Lehmann (1963), Ann. Math. Statist. 34:598-611; Moses, in Walker & Lev, Statistical
// Inference (1953); Hollander & Wolfe, Nonparametric Statistical Methods, §4.3.
//
// It is the two-sample counterpart of stats.PairedRatio: no normality (trial and slice
// times have heavy tails), exact coverage when the two samples differ by a shift of
// their log values, deterministic (no resampling), and it inverts Mann–Whitney's test,
// which benchstat uses: the interval excludes 1 exactly when the test rejects. Values
// must be finite and > 0; neither slice is modified. Without enough values for a 95%
// interval (4 on each side, or 3 against 5 and more) the estimate has none.
func TwoSampleRatio(old, new []float64) (Estimate, error) {
	lo, err := logs(old)
	if err != nil {
		return Estimate{}, fmt.Errorf("old: %w", err)
	}
	ln, err := logs(new)
	if err != nil {
		return Estimate{}, fmt.Errorf("new: %w", err)
	}
	diffs := make([]float64, 0, len(lo)*len(ln))
	for _, a := range lo {
		for _, b := range ln {
			diffs = append(diffs, b-a)
		}
	}
	slices.Sort(diffs)
	e := Estimate{Method: TwoSample, Old: len(lo), New: len(ln), Ratio: math.Exp(middle(diffs)), Hi: math.Inf(1)}
	k, conf := mannWhitneyK(len(lo), len(ln), level)
	if k == 0 {
		e.Warnings = append(e.Warnings, fmt.Sprintf("%d and %d values: too few for a 95%% interval (4 on each side suffice)", len(lo), len(ln)))
		return e, nil
	}
	e.Lo, e.Hi, e.Confidence = math.Exp(diffs[k-1]), math.Exp(diffs[len(diffs)-k]), conf
	return e, nil
}

func logs(xs []float64) ([]float64, error) {
	if len(xs) == 0 {
		return nil, fmt.Errorf("no values")
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		if !(x > 0) || math.IsInf(x, 1) {
			return nil, fmt.Errorf("value %d is %v, want a finite number > 0", i+1, x)
		}
		out[i] = math.Log(x)
	}
	return out, nil
}

// middle is the median of sorted values.
func middle(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// exactMax is the largest m + n for which mannWhitneyK uses the exact distribution;
// beyond, the normal approximation is within a rank of it.
const exactMax = 80

// mannWhitneyK returns the rank k of the sorted differences that bound the Moses
// interval at level conf: the interval covers the shift with probability
// 1 − 2·P(U <= k−1), U the Mann–Whitney statistic under the null; k is the largest rank
// whose coverage is at least conf, achieved that coverage, and k = 0 when even the
// widest interval (k = 1) falls short.
func mannWhitneyK(m, n int, conf float64) (k int, achieved float64) {
	tail := (1 - conf) / 2
	if m+n <= exactMax {
		cdf := uCDF(m, n)
		for k < len(cdf) && cdf[k] <= tail { // cdf[k] = P(U <= k): rank k+1 is allowed
			k++
		}
		if k == 0 {
			return 0, 0
		}
		return k, 1 - 2*cdf[k-1]
	}
	mean := float64(m*n) / 2
	sd := math.Sqrt(float64(m*n*(m+n+1)) / 12)
	z := math.Sqrt2 * math.Erfinv(2*tail-1) // the normal quantile of tail, negative
	k = int(math.Floor(mean + 0.5 + z*sd))
	return k, 1 - 2*normalCDF((float64(k)-0.5-mean)/sd)
}

func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

var (
	uCache   = map[[2]int][]float64{}
	uCacheMu sync.Mutex
)

// uCDF returns P(U <= u) for u = 0..m·n under the null. U = W − m(m+1)/2, W the sum of
// the ranks of the m values among all m + n; the number of m-subsets of {1..m+n} with
// each sum comes from dynamic programming over the ranks (float counts: C(80, 40) is
// 1e23, far inside float64's range, with a relative error near 1e-16).
func uCDF(m, n int) []float64 {
	uCacheMu.Lock()
	defer uCacheMu.Unlock()
	if c, ok := uCache[[2]int{m, n}]; ok {
		return c
	}
	N := m + n
	maxW := m * (2*N - m + 1) / 2  // the m largest ranks
	ways := make([][]float64, m+1) // ways[j][w]: j-subsets of the ranks so far summing to w
	for j := range ways {
		ways[j] = make([]float64, maxW+1)
	}
	ways[0][0] = 1
	for r := 1; r <= N; r++ {
		for j := min(r, m); j >= 1; j-- {
			for w := maxW; w >= r; w-- {
				ways[j][w] += ways[j-1][w-r]
			}
		}
	}
	base := m * (m + 1) / 2
	cdf := make([]float64, m*n+1)
	var total, cum float64
	for w := base; w <= maxW; w++ {
		total += ways[m][w]
	}
	for u := range cdf {
		cum += ways[m][base+u]
		cdf[u] = cum / total
	}
	uCache[[2]int{m, n}] = cdf
	return cdf
}
