package sweep

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"dbbench/runners/saturation"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// Within is how close to the best median QPS a pool must come to count as good enough:
// the knee and the recommendation both use it.
const Within = 0.05

// Point is one pool size of one variant at one concurrency: a value per repetition.
type Point struct {
	Pool      int
	QPS       []float64 // req/s
	P99       []float64 // seconds
	PoolWaits []float64 // Go targets: requests that waited for a connection
	// ThreadsRunning is the mean over repetitions of the database's mean Threads_running;
	// ThreadsMax the largest value seen.
	ThreadsRunning float64
	ThreadsMax     int64
	Errors         int64
	Invalid        string // why the variant was invalid at this pool; "" when valid
	// Saturation says whether the point's latency was service time or queueing.
	Saturation saturation.Verdict
}

// Advice is what a QPS and p99 curve against pool size says.
type Advice struct {
	Best    int     // pool with the highest median QPS
	BestQPS float64 // its median QPS
	// Knee is the smallest pool whose median QPS is within Within of the best: past it,
	// a larger pool buys less than 5%.
	Knee int
	// Pool is the recommendation: the smallest pool from the knee up whose median QPS is
	// within Within of the best and whose p99 is not significantly worse than the best
	// pool's (Mann-Whitney U, alpha 0.05, over the repetitions).
	Pool     int
	PoolQPS  float64
	P99Ratio float64 // the recommended pool's median p99 over the best pool's
	// DegradesAt is the first pool above Best whose median QPS falls more than Within
	// below the best (0 when none); Drop is its fall, as a fraction of the best.
	DegradesAt int
	Drop       float64
	Notes      []string // why a pool was passed over, and the test's warnings
}

// Recommend reads the advice off one curve. Invalid points and points without
// repetitions take no part; the points need not be sorted.
func Recommend(points []Point) (Advice, error) {
	var ps []Point
	for _, p := range points {
		if p.Invalid == "" && len(p.QPS) > 0 && len(p.P99) > 0 {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return Advice{}, errors.New("no valid pool size was measured")
	}
	slices.SortFunc(ps, func(a, b Point) int { return a.Pool - b.Pool })
	med := make([]float64, len(ps))
	for i, p := range ps {
		s, err := stats.Summarize(p.QPS, units.QPS)
		if err != nil {
			return Advice{}, fmt.Errorf("pool %d: %w", p.Pool, err)
		}
		med[i] = s.Center
	}
	best := 0
	for i := range ps {
		if med[i] > med[best] {
			best = i
		}
	}
	a := Advice{Best: ps[best].Pool, BestQPS: med[best]}
	good := func(i int) bool { return med[i] >= (1-Within)*med[best] }
	knee := 0
	for !good(knee) {
		knee++
	}
	a.Knee = ps[knee].Pool
	for i := best + 1; i < len(ps); i++ {
		if !good(i) {
			a.DegradesAt, a.Drop = ps[i].Pool, 1-med[i]/med[best]
			break
		}
	}
	warned := map[string]bool{}
	for i := knee; i <= best; i++ {
		if !good(i) {
			continue
		}
		c, err := stats.Compare(ps[best].P99, ps[i].P99, units.P99)
		if err != nil {
			return Advice{}, fmt.Errorf("pool %d: p99: %w", ps[i].Pool, err)
		}
		for _, w := range c.Warnings {
			// The summaries' own warnings (no interval below six samples) are the
			// tables' business; only the test's say something about the advice.
			if strings.HasPrefix(w, "old: ") || strings.HasPrefix(w, "new: ") {
				continue
			}
			if !warned[w] {
				warned[w] = true
				a.Notes = append(a.Notes, "p99 test: "+w)
			}
		}
		if i != best && c.Significant && c.Ratio > 1 {
			a.Notes = append(a.Notes, fmt.Sprintf("pool %d reaches %.0f%% of the best QPS but its p99 is %.2f× the best pool's (p = %.3f)",
				ps[i].Pool, 100*med[i]/med[best], c.Ratio, c.P))
			continue
		}
		a.Pool, a.PoolQPS, a.P99Ratio = ps[i].Pool, med[i], c.Ratio
		break
	}
	return a, nil
}

// RuleOfThumb is the common starting point for a pool: database cores × 2 + spindles
// (the PostgreSQL wiki's formula, quoted for MySQL pools as well).
func RuleOfThumb(cores, spindles int) int { return 2*cores + spindles }

// PerInstance is how many connections each of instances app instances may hold so that
// together they stay within the server's max_connections.
func PerInstance(maxConnections, instances int) int {
	if instances < 1 {
		return 0
	}
	return maxConnections / instances
}
