package stats

import (
	"fmt"
	"math"
	"slices"
)

// Trend is a robust straight line through a series, y ≈ Intercept + Slope·x, with a
// 95% confidence interval of the slope. A series grows when Lo > 0.
type Trend struct {
	N     int // points
	Pairs int // pairwise slopes: pairs of points with different x
	Slope float64
	// [Lo, Hi] is the slope's confidence interval: -Inf and +Inf when the series is too
	// short for one (fewer than 5 points), and Warnings says so.
	Lo, Hi    float64
	Intercept float64
	// Rho is the lag-1 autocorrelation of the residuals that widened the interval
	// (TheilSenSerial only; 0 when it was not positive).
	Rho      float64
	Warnings []string
}

// TheilSen fits a line to the points (x[i], y[i]), x in seconds for a time series.
//
// Method: the slope is the median of the slopes (y_j - y_i)/(x_j - x_i) over all pairs
// with x_i != x_j (Theil 1950; Sen 1968, JASA 63:1379-1389), so up to 29% of the points
// can be outliers without moving it. Its 95% interval is Sen's: with N pairwise slopes
// sorted and C = z_0.975·sqrt(Var S), Var S the variance of Kendall's S between x and the
// residuals, the bounds are the slopes of rank round((N - C)/2) and round((N + C)/2) + 1
// (1-based). Var S = [n(n-1)(2n+5) - Σ t(t-1)(2t+5)]/18, the sum over groups of t equal
// x: under the hypothesis that the slope is β, the residuals y - βx are continuous, so
// only ties in x matter, as in Sen (1968). (Gilbert, Statistical Methods for
// Environmental Pollution Monitoring, 1987, ch. 16, puts ties in y in the sum instead;
// for measurements that never tie, the two agree when x has no ties.) The intercept is
// the median of y - Slope·x.
//
// The interval is a normal approximation, reasonable from about 10 points; fewer than
// two points (none included) is an error. The cost is O(n² log n) time and n(n-1)/2
// floats of memory: fine for a few thousand points.
func TheilSen(x, y []float64) (Trend, error) { return theilSen(x, y, false, Confidence) }

// TheilSenAt is TheilSen with an interval of confidence conf.
func TheilSenAt(x, y []float64, conf float64) (Trend, error) { return theilSen(x, y, false, conf) }

// TheilSenSerial is TheilSen for a time series whose errors are autocorrelated (memory
// that wanders, a p99 that stays high for a while): such a series crosses its trend
// less often than independent noise would, and Sen's interval, which assumes
// independence, is too narrow on stationary AR(1) noise (README.md, "Methods", has how
// often it misses, from TestTheilSenSerialCoversWanderingNoise). The variance of
// Kendall's S is multiplied by the effective-sample-size factor
// n/n* = 1 + 2 Σ_{k=1}^{n-1} (1 - k/n) ρ^k (Yue & Wang, Water Resources Management
// 18:201-218, 2004, after Hamed & Rao, J. Hydrology 204:182-196, 1998), with ρ the
// lag-1 autocorrelation of the residuals in x order, taken as an AR(1) and used only
// when positive. x must be sorted. The interval's confidence is conf (0.95: TheilSen's).
// Like TheilSen, fewer than two points is an error.
func TheilSenSerial(x, y []float64, conf float64) (Trend, error) { return theilSen(x, y, true, conf) }

func theilSen(x, y []float64, serial bool, conf float64) (Trend, error) {
	if err := checkSeries(x, y); err != nil {
		return Trend{}, err
	}
	slopes := pairwiseSlopes(x, y)
	if len(slopes) == 0 {
		return Trend{}, fmt.Errorf("theil-sen: all %d points have x = %v, want at least two different x", len(x), x[0])
	}
	slices.Sort(slopes)
	t := Trend{N: len(x), Pairs: len(slopes), Slope: sortedMedian(slopes)}
	residuals := make([]float64, len(x))
	for i := range x {
		residuals[i] = y[i] - t.Slope*x[i]
	}
	varS := kendallVarS(x)
	if serial {
		n := float64(len(residuals))
		// lag1 underestimates a positive correlation by about (1+3ρ)/n; Marriott and
		// Pope's correction (Biometrika 41:390-402, 1954) takes most of that back.
		t.Rho = min(0.95, max(0, (n*lag1(residuals)+1)/(n-3)))
		varS *= effectiveSizeFactor(t.Rho, len(x))
	}
	slices.Sort(residuals)
	t.Intercept = sortedMedian(residuals)

	c := normalQuantile(1-(1-conf)/2) * math.Sqrt(varS)
	lo := int(math.Round((float64(len(slopes)) - c) / 2))
	hi := int(math.Round((float64(len(slopes))+c)/2)) + 1
	if lo < 1 || hi > len(slopes) {
		t.Lo, t.Hi = math.Inf(-1), math.Inf(1)
		t.Warnings = append(t.Warnings, fmt.Sprintf("no %g%% interval of the slope from %d points: need about 5 with different x", 100*conf, len(x)))
		return t, nil
	}
	t.Lo, t.Hi = slopes[lo-1], slopes[hi-1]
	return t, nil
}

// HasInterval reports whether the series was long enough for a finite interval.
func (t Trend) HasInterval() bool { return !math.IsInf(t.Lo, 0) && !math.IsInf(t.Hi, 0) }

// checkSeries rejects series of different lengths, fewer than two points, or values
// that are not finite.
func checkSeries(x, y []float64) error {
	if len(x) != len(y) {
		return fmt.Errorf("series: %d x values but %d y values", len(x), len(y))
	}
	if len(x) < 2 {
		return fmt.Errorf("series: %d points, want at least 2", len(x))
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return fmt.Errorf("series: point %d is (%v, %v), want finite numbers", i+1, x[i], y[i])
		}
	}
	return nil
}

// pairwiseSlopes returns the slopes between all pairs of points with different x.
func pairwiseSlopes(x, y []float64) []float64 {
	out := make([]float64, 0, len(x)*(len(x)-1)/2)
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			if x[i] != x[j] {
				out = append(out, (y[j]-y[i])/(x[j]-x[i]))
			}
		}
	}
	return out
}

// lag1 is the lag-1 autocorrelation of xs (0 for fewer than 3 values or no spread).
func lag1(xs []float64) float64 {
	if len(xs) < 3 {
		return 0
	}
	var mean float64
	for _, v := range xs {
		mean += v
	}
	mean /= float64(len(xs))
	var c0, c1 float64
	for i, v := range xs {
		c0 += (v - mean) * (v - mean)
		if i > 0 {
			c1 += (v - mean) * (xs[i-1] - mean)
		}
	}
	if c0 == 0 {
		return 0
	}
	return c1 / c0
}

// effectiveSizeFactor is n/n* for an AR(1) of lag-1 correlation rho:
// 1 + 2 Σ_{k=1}^{n-1} (1 - k/n) rho^k.
func effectiveSizeFactor(rho float64, n int) float64 {
	f, p := 1.0, 1.0
	for k := 1; k < n; k++ {
		p *= rho
		f += 2 * (1 - float64(k)/float64(n)) * p
	}
	return f
}

// kendallVarS is the null variance of Kendall's S for n points whose x has ties (and
// whose other variable has none): [n(n-1)(2n+5) - Σ t(t-1)(2t+5)]/18 over groups of t
// equal x (Kendall, Rank Correlation Methods, 1970, ch. 4).
func kendallVarS(x []float64) float64 {
	sorted := slices.Sorted(slices.Values(x))
	n := float64(len(x))
	v := n * (n - 1) * (2*n + 5)
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		t := float64(j - i)
		v -= t * (t - 1) * (2*t + 5)
		i = j
	}
	return v / 18
}
