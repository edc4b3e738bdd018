package stats

import (
	"math"
	"sync"
)

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
	k = int(math.Floor(mean + 0.5 + normalQuantile(tail)*sd))
	return k, 1 - 2*normalCDF((float64(k)-0.5-mean)/sd)
}

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
