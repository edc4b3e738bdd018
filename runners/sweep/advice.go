package sweep

import (
	"fmt"
	"slices"

	"dbbench/runners/results"
	"dbbench/runners/saturation"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// Within is how close to the best median QPS a pool must come to be at the knee.
const Within = 0.05

// Curve is one family of a pool sweep: its points by pool.
type Curve struct {
	Family, Lang string
	Points       []Point
}

// Point is one pool size of one family.
type Point struct {
	Pool    int
	Invalid string         // why the variant was invalid; "" when valid
	Levels  map[int]*Level // closed-loop slices by client connections
	// Capacity is the capacity search (nil when none ran); AtCapacity the slice of the
	// highest rate that held.
	Capacity   *results.Capacity
	AtCapacity *results.Repetition
}

// Level is the closed-loop slices of a point at one client count.
type Level struct {
	QPS, P99 []float64
	// Per request: seconds waited for a pool connection, and how many waits (Go).
	WaitSeconds, Waits []float64
	InUseMean          []float64 // mean connections in use
	InUseMax           int64
	Threads            []float64 // mean Threads_running
	Saturation         saturation.Verdict
}

// Curves groups a sweep's variants by family (in the run's order), points by pool.
func Curves(r *results.Run) []Curve {
	var out []Curve
	idx := map[string]int{}
	for _, v := range r.Variants {
		fam := familyOf(v)
		i, ok := idx[fam]
		if !ok {
			i = len(out)
			idx[fam] = i
			out = append(out, Curve{Family: fam, Lang: v.Lang})
		}
		out[i].Points = append(out[i].Points, point(v))
	}
	for i := range out {
		slices.SortFunc(out[i].Points, func(a, b Point) int { return a.Pool - b.Pool })
	}
	return out
}

func point(v *results.Variant) Point {
	p := Point{Pool: v.Pool, Invalid: v.InvalidReason, Levels: map[int]*Level{}, Capacity: v.Capacity}
	verdicts := map[int][]saturation.Verdict{}
	for _, rep := range v.Reps {
		s := rep.Saturation
		if s == nil {
			continue
		}
		if s.Offered > 0 {
			if p.Capacity != nil && s.Offered == p.Capacity.Rate && p.Capacity.Rate > 0 {
				p.AtCapacity = rep
			}
			continue
		}
		l := p.Levels[s.Connections]
		if l == nil {
			l = &Level{}
			p.Levels[s.Connections] = l
		}
		n := float64(max(rep.Requests, 1))
		l.QPS, l.P99 = append(l.QPS, rep.QPS), append(l.P99, rep.P99)
		if rep.PoolCounted {
			l.WaitSeconds = append(l.WaitSeconds, rep.PoolWaitSeconds/n)
			l.Waits = append(l.Waits, float64(rep.PoolWaits)/n)
			l.InUseMean = append(l.InUseMean, rep.PoolInUseMean)
			l.InUseMax = max(l.InUseMax, rep.PoolInUseMax)
		}
		l.Threads = append(l.Threads, rep.ThreadsRunningMean)
		verdicts[s.Connections] = append(verdicts[s.Connections], saturation.Judge(*s))
	}
	for c, vs := range verdicts {
		p.Levels[c].Saturation = saturation.Combine(vs)
	}
	return p
}

// Top is the highest client count any point of the curve ran at.
func (cv Curve) Top() int {
	top := 0
	for _, p := range cv.Points {
		for c := range p.Levels {
			top = max(top, c)
		}
	}
	return top
}

// Largest is the curve's largest pool, which ran the concurrency series.
func (cv Curve) Largest() Point { return cv.Points[len(cv.Points)-1] }

// median of xs, 0 for none.
func median(xs []float64) float64 {
	s, err := stats.Summarize(xs, units.QPS)
	if err != nil {
		return 0
	}
	return s.Center
}

// Advice is what a pool sweep says of one family for a rate and a p99 target.
type Advice struct {
	Rate     float64
	Pool     int     // the smallest pool whose capacity holds Rate; 0 when none does
	Capacity float64 // its capacity at the SLO, req/s
	Headroom float64 // Capacity/Rate - 1
	// Short is the largest pool below Pool, and its capacity: what falls short.
	Short, ShortCapacity int
	Best, Knee           int     // closed loop at the top client count: best pool, and the smallest within Within of it
	BestQPS              float64 // its median QPS
	ByPool, ByClients    *stats.USL
	FitErrors            []string // why a fit failed
}

// Advise reads the advice off a curve.
func Advise(cv Curve, rate float64) Advice {
	a := Advice{Rate: rate}
	for _, p := range cv.Points {
		if p.Invalid != "" || p.Capacity == nil {
			continue
		}
		if p.Capacity.Rate >= rate {
			a.Pool, a.Capacity = p.Pool, p.Capacity.Rate
			a.Headroom = p.Capacity.Rate/rate - 1
			break
		}
		a.Short, a.ShortCapacity = p.Pool, int(p.Capacity.Rate)
	}
	top := cv.Top()
	var ns, xs []float64
	for _, p := range cv.Points {
		l := p.Levels[top]
		if p.Invalid != "" || l == nil || p.Pool > top {
			continue
		}
		q := median(l.QPS)
		ns, xs = append(ns, float64(p.Pool)), append(xs, q)
		if q > a.BestQPS {
			a.Best, a.BestQPS = p.Pool, q
		}
	}
	for i := range xs {
		if xs[i] >= (1-Within)*a.BestQPS {
			a.Knee = int(ns[i])
			break
		}
	}
	a.ByPool = a.fit("against pool size", ns, xs)
	var cs, ys []float64
	largest := cv.Largest()
	for c, l := range largest.Levels {
		cs, ys = append(cs, float64(c)), append(ys, median(l.QPS))
	}
	a.ByClients = a.fit("against concurrency", cs, ys)
	return a
}

func (a *Advice) fit(what string, n, x []float64) *stats.USL {
	u, err := stats.FitUSL(n, x)
	if err != nil {
		a.FitErrors = append(a.FitErrors, fmt.Sprintf("no USL fit %s: %v", what, err))
		return nil
	}
	return &u
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
