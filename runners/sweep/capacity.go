package sweep

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"dbbench/runners/results"
	"dbbench/runners/run"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// PoolPlan measures a pool sweep in one language phase of a run (run.Plan): every pool
// point's target is up at once, and each step is interleaved across the points (each
// round visits every point once, in a new random order), as a run interleaves its
// variants:
//
//  1. Throughput: closed-loop slices of every point at each concurrency level (a pool
//     larger than the level is run only if it is the first at or above it: with at
//     most that many requests in flight a larger pool holds no more connections).
//  2. Concurrency: the largest pool of each family, closed loop at each of the
//     language's pool sizes as a client count: the curve the USL fits against
//     concurrency.
//  3. Capacity: the highest open-loop rate at which each point keeps its p99 within the
//     SLO, its errors under the run's threshold and the rate it is offered (runners/
//     saturation), by bisection between 0 and a little above its closed-loop throughput.
type PoolPlan struct {
	Levels          []int         // closed-loop client connections
	Series          []int         // step 2's client counts; nil: the phase's pool sizes
	Reps            int           // slices per point and level in step 1, per count in step 2
	SLO             time.Duration // the p99 target of step 3
	Probes          int           // bisection rounds of step 3
	OpenConnections int           // the open-loop generator's connections in step 3
	Seed            uint64
}

// Measure implements run.Plan.
func (pl *PoolPlan) Measure(ctx context.Context, p *run.Phase) error {
	rng := rand.New(rand.NewPCG(pl.Seed, 0x706f6f6c)) // "pool"
	points := p.Variants()
	if err := pl.throughput(ctx, p, points, rng); err != nil {
		return err
	}
	if err := pl.concurrency(ctx, p, points, rng); err != nil {
		return err
	}
	return pl.capacity(ctx, p, points, rng)
}

func (pl *PoolPlan) throughput(ctx context.Context, p *run.Phase, points []*results.Variant, rng *rand.Rand) error {
	for rep := 1; rep <= pl.Reps; rep++ {
		for _, c := range pl.Levels {
			p.SetStatus(func() string { return fmt.Sprintf("throughput at %d clients, round %d of %d", c, rep, pl.Reps) })
			for _, v := range shuffled(rng, points) {
				if !v.Valid || !runsAt(v, points, c) {
					continue
				}
				if _, err := p.Slice(ctx, v, run.Load{Connections: c}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// runsAt says whether point v runs at concurrency c: its pool is at most c, or it is the
// first pool of its family at or above c.
func runsAt(v *results.Variant, points []*results.Variant, c int) bool {
	if v.Pool <= c {
		return true
	}
	for _, w := range points {
		if familyOf(w) == familyOf(v) && w.Pool >= c && w.Pool < v.Pool {
			return false
		}
	}
	return true
}

func (pl *PoolPlan) concurrency(ctx context.Context, p *run.Phase, points []*results.Variant, rng *rand.Rand) error {
	series := pl.Series
	if series == nil {
		for _, v := range points {
			if !slices.Contains(series, v.Pool) {
				series = append(series, v.Pool)
			}
		}
		slices.Sort(series)
	}
	var largest []*results.Variant
	for _, v := range points {
		if isLargest(v, points) {
			largest = append(largest, v)
		}
	}
	for rep := 1; rep <= pl.Reps; rep++ {
		p.SetStatus(func() string { return fmt.Sprintf("concurrency series, round %d of %d", rep, pl.Reps) })
		for _, c := range shuffled(rng, series) {
			for _, v := range shuffled(rng, largest) {
				if !v.Valid {
					continue
				}
				if _, err := p.Slice(ctx, v, run.Load{Connections: c}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func isLargest(v *results.Variant, points []*results.Variant) bool {
	for _, w := range points {
		if familyOf(w) == familyOf(v) && w.Pool > v.Pool {
			return false
		}
	}
	return true
}

// capacity bisects each point's open-loop rate, one probe per point per round.
func (pl *PoolPlan) capacity(ctx context.Context, p *run.Phase, points []*results.Variant, rng *rand.Rand) error {
	type search struct{ lo, hi float64 }
	s := map[*results.Variant]*search{}
	for _, v := range points {
		if hi := closedCeiling(v); hi > 0 {
			v.Capacity = &results.Capacity{SLO: pl.SLO.Seconds()}
			s[v] = &search{0, 1.25 * hi}
		}
	}
	for round := 1; round <= pl.Probes; round++ {
		p.SetStatus(func() string { return fmt.Sprintf("capacity at p99 ≤ %v, probe %d of %d", pl.SLO, round, pl.Probes) })
		for _, v := range shuffled(rng, points) {
			b := s[v]
			if b == nil || !v.Valid {
				continue
			}
			rate := (b.lo + b.hi) / 2
			rep, err := p.Slice(ctx, v, run.Load{Rate: rate, Connections: pl.OpenConnections})
			if err != nil {
				return err
			}
			if rep == nil { // the variant failed outright: no more probes
				v.Capacity.Probes = append(v.Capacity.Probes, results.Probe{Rate: rate, Why: v.InvalidReason})
				continue
			}
			pass, why := pl.judge(v, rep, p.Options().MaxErrorRate)
			v.Capacity.Probes = append(v.Capacity.Probes, results.Probe{Rate: rate, Rep: rep.Rep, Pass: pass, Why: why})
			if pass {
				b.lo = rate
				v.Capacity.Rate = max(v.Capacity.Rate, rate)
			} else {
				b.hi = rate
			}
		}
	}
	return nil
}

// judge says whether a probe held: p99 within the SLO, errors within the threshold, and
// the rate kept (not past capacity, nor a generator that fell behind).
func (pl *PoolPlan) judge(v *results.Variant, rep *results.Repetition, maxErrors float64) (bool, string) {
	if rep.P99 > pl.SLO.Seconds() {
		return false, fmt.Sprintf("p99 %.1f ms above %v", 1e3*rep.P99, pl.SLO)
	}
	if e, _ := v.Value(rep, units.Errors); e > maxErrors {
		return false, fmt.Sprintf("%.2f%% errors", 100*e)
	}
	if rep.Saturation != nil {
		if verdict := saturationOf(rep); verdict.Marked() {
			return false, verdict.Flag()
		}
	}
	return true, ""
}

// closedCeiling is the median closed-loop QPS of v at the highest concurrency it ran
// at: the top of its capacity search.
func closedCeiling(v *results.Variant) float64 {
	byLevel := map[int][]float64{}
	top := 0
	for _, rep := range v.Reps {
		if rep.Saturation == nil || rep.Saturation.Offered > 0 {
			continue
		}
		c := rep.Saturation.Connections
		byLevel[c] = append(byLevel[c], rep.QPS)
		top = max(top, c)
	}
	s, err := stats.Summarize(byLevel[top], units.QPS)
	if err != nil {
		return 0
	}
	return s.Center
}

func shuffled[T any](rng *rand.Rand, xs []T) []T {
	out := slices.Clone(xs)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
