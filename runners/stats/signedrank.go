package stats

import "math"

// exactSignedRankMax is the largest n for which signedRankK uses the exact null
// distribution: its counts stay below 2^50, exact in a uint64, and beyond it the
// normal approximation is within one rank of the exact answer.
const exactSignedRankMax = 50

// signedRankK returns the rank k of the Walsh averages that bound the distribution-free
// confidence interval of a centre of symmetry at level conf: the interval runs from the
// k-th smallest to the k-th largest of the n(n+1)/2 Walsh averages (Hollander & Wolfe,
// Nonparametric Statistical Methods, 3rd ed., §3.3; Bauer 1972, JASA 67:687-690). That
// interval covers the centre with probability 1 - 2·P(T+ <= k-1), T+ the Wilcoxon
// signed-rank statistic under the null; k is the largest rank whose coverage is at
// least conf, and achieved is that coverage. k is 0 when no finite interval reaches
// conf (n < 6 at 95%: even the widest one, k = 1, covers only 1 - 2^(1-n)).
//
// For n <= 50 the distribution of T+ is exact; beyond, normal with a continuity
// correction (mean n(n+1)/4, variance n(n+1)(2n+1)/24).
func signedRankK(n int, conf float64) (k int, achieved float64) {
	tail := (1 - conf) / 2
	if n <= exactSignedRankMax {
		cdf := signedRankCDF(n)
		for k < len(cdf) && cdf[k] <= tail { // cdf[k] = P(T+ <= k): rank k+1 is allowed
			k++
		}
		if k == 0 {
			return 0, 0
		}
		return k, 1 - 2*cdf[k-1]
	}
	mean := float64(n*(n+1)) / 4
	sd := math.Sqrt(float64(n*(n+1)*(2*n+1)) / 24)
	// P(T+ <= k-1) ≈ Φ((k - 1 + ½ - mean)/sd) <= tail.
	k = int(math.Floor(mean + 0.5 + normalQuantile(tail)*sd))
	return k, 1 - 2*normalCDF((float64(k)-0.5-mean)/sd)
}

// signedRankCDF returns P(T+ <= t) for t = 0..n(n+1)/2, where T+ is the sum of the ranks
// with a positive sign among ranks 1..n, each sign positive with probability ½
// independently. The counts of subsets of {1..n} by sum come from dynamic programming
// over the ranks (adding rank r either leaves a subset's sum or adds r to it).
func signedRankCDF(n int) []float64 {
	maxSum := n * (n + 1) / 2
	counts := make([]uint64, maxSum+1)
	counts[0] = 1
	top := 0
	for r := 1; r <= n; r++ {
		top += r
		for s := top; s >= r; s-- {
			counts[s] += counts[s-r]
		}
	}
	cdf := make([]float64, maxSum+1)
	total := math.Ldexp(1, n)
	var cum uint64
	for s, c := range counts {
		cum += c
		cdf[s] = float64(cum) / total
	}
	return cdf
}
