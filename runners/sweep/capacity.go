package sweep

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"dbbench/runners/measure/run"
	"dbbench/runners/results"
	"dbbench/runners/saturation"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// PoolPlan measures a pool sweep in one language phase of a run (run.Plan): every pool
// point's target is up at once, and each step is interleaved across the points, each
// round visiting every point in a new random order, as a run interleaves its variants:
//
//  1. Ceiling: CeilingReps closed-loop slices of every point at Connections clients:
//     the most the point serves on this machine, the top of its searches.
//  2. Capacity: Searches independent bisections per point of the highest open-loop
//     rate at which it keeps its p99 within the SLO, its errors under the run's
//     threshold and the rate it is offered (runners/saturation). Each round probes
//     every point's every search once, so a drift of the machine reaches all searches
//     alike. A point's capacity is the median of its searches with the 95% interval of
//     that median (order statistics): one probe near the capacity passes or fails by
//     chance, so one search alone moves by a step each time it is repeated.
type PoolPlan struct {
	Connections     int           // closed-loop clients of step 1
	CeilingReps     int           // slices per point in step 1
	SLO             time.Duration // the p99 target of step 2
	Searches        int           // independent bisections per point
	Probes          int           // bisection rounds of each search (each halves its bracket)
	OpenConnections int           // the open-loop generator's connections in step 2
	Seed            uint64
}

// Defaults of the plan (`dbbench sweep pool` flags): six searches give a 97% interval of
// the median from their lowest to their highest; four probes a step of 1/16 of the
// bracket.
const (
	DefaultSearches    = 6
	DefaultProbes      = 4
	DefaultCeilingReps = 2
)

// Retries is how many times a probe is measured again at the same rate when its
// generator fell behind: such a probe says nothing about the target (runners/saturation),
// and counting it as a failure pulled whole searches to 0 on a busy machine.
const Retries = 2

// Slices is how many slices the plan measures over points, for the progress line's ETA.
func (pl *PoolPlan) Slices(points int) int {
	return points * (pl.CeilingReps + pl.Searches*pl.Probes)
}

// Measure implements run.Plan.
func (pl *PoolPlan) Measure(ctx context.Context, p *run.Phase) error {
	rng := rand.New(rand.NewPCG(pl.Seed, 0x706f6f6c)) // "pool"
	points := p.Variants()
	o := p.Options()
	p.SetPlanned(pl.Slices(len(points)), sliceEstimate(o.Duration, o.LeadIn))
	if err := pl.ceiling(ctx, p, points, rng); err != nil {
		return err
	}
	return pl.capacity(ctx, p, points, rng)
}

func (pl *PoolPlan) ceiling(ctx context.Context, p *run.Phase, points []*results.Variant, rng *rand.Rand) error {
	for rep := 1; rep <= pl.CeilingReps; rep++ {
		p.SetStatus(func() string {
			return fmt.Sprintf("ceiling at %d clients, round %d of %d", pl.Connections, rep, pl.CeilingReps)
		})
		for _, v := range shuffled(rng, points) {
			if !v.Valid {
				continue
			}
			if _, err := p.Slice(ctx, v, run.Load{Connections: pl.Connections}); err != nil {
				return err
			}
		}
	}
	return nil
}

// search is one bisection of one point's capacity.
type search struct {
	v       *results.Variant
	n       int // from 1
	lo, hi  float64
	best    float64 // the highest rate that passed
	decided bool    // a probe held or failed: the search has something to say
}

// outcome is what one probe says about the target.
type outcome int

const (
	held         outcome = iota
	failed               // p99, errors, or past capacity
	inconclusive         // the generator fell behind: nothing about the target
)

// record moves the search's bracket by a probe's outcome; an inconclusive probe leaves
// it where it was.
func (s *search) record(rate float64, o outcome) {
	switch o {
	case held:
		s.lo, s.best, s.decided = rate, rate, true
	case failed:
		s.hi, s.decided = rate, true
	}
}

// capacity runs every point's searches, one probe of each per round.
func (pl *PoolPlan) capacity(ctx context.Context, p *run.Phase, points []*results.Variant, rng *rand.Rand) error {
	var all []*search
	for _, v := range points {
		top := 1.25 * closedCeiling(v)
		if top <= 0 {
			continue
		}
		v.Capacity = &results.Capacity{SLO: pl.SLO.Seconds()}
		for n := 1; n <= pl.Searches; n++ {
			// Brackets a few percent apart, so the searches' grids of rates interleave
			// instead of landing on the same steps.
			spread := 1 + 0.04*(float64(n)-float64(pl.Searches+1)/2)
			all = append(all, &search{v: v, n: n, hi: top * spread})
		}
	}
	for round := 1; round <= pl.Probes; round++ {
		p.SetStatus(func() string { return fmt.Sprintf("capacity at p99 ≤ %v, probe %d of %d", pl.SLO, round, pl.Probes) })
		for _, s := range shuffled(rng, all) {
			if !s.v.Valid {
				continue
			}
			if err := pl.probe(ctx, p, s); err != nil {
				return err
			}
		}
	}
	for _, v := range points {
		settle(v.Capacity, all)
	}
	return nil
}

// probe measures one search's next rate and halves its bracket; if the rate never
// kept its schedule (probeAt), the bracket stays.
func (pl *PoolPlan) probe(ctx context.Context, p *run.Phase, s *search) error {
	rate := (s.lo + s.hi) / 2
	o, measured, err := probeAt(ctx, p, s.v, run.Load{Rate: rate, Connections: pl.OpenConnections}, pl.SLO, s.n)
	if err == nil && measured {
		s.record(rate, o)
	}
	return err
}

// probeAt measures v once at load (open loop) and records the probe in v.Capacity,
// of search n (0: none), judged against slo. A probe whose generator fell behind is
// measured again, up to Retries times, and its outcome stays inconclusive if it never
// kept its schedule. measured is false when the variant failed outright: no more
// probes of it say anything.
func probeAt(ctx context.Context, p *run.Phase, v *results.Variant, load run.Load, slo time.Duration, n int) (o outcome, measured bool, err error) {
	for try := 0; ; try++ {
		rep, err := p.Slice(ctx, v, load)
		if err != nil {
			return 0, false, err
		}
		if rep == nil {
			v.Capacity.Probes = append(v.Capacity.Probes, results.Probe{Rate: load.Rate, Search: n, Why: v.InvalidReason})
			return 0, false, nil
		}
		o, why := judge(slo, v, rep, p.Options().MaxErrorRate)
		v.Capacity.Probes = append(v.Capacity.Probes, results.Probe{Rate: load.Rate, Rep: rep.Rep, Search: n, Pass: o == held, Inconclusive: o == inconclusive, Why: why})
		if o != inconclusive || try == Retries {
			return o, true, nil
		}
	}
}

// settle sets a point's capacity from its decided searches (a search whose every probe
// was inconclusive is left out): their median, with the 95% interval of the median.
func settle(c *results.Capacity, all []*search) {
	if c == nil {
		return
	}
	var v *results.Variant
	c.Searches = nil
	for _, s := range all {
		if s.v.Capacity == c && s.decided {
			v = s.v
			c.Searches = append(c.Searches, s.best)
		}
	}
	if v == nil {
		return
	}
	sum, err := stats.Summarize(c.Searches, units.QPS)
	if err != nil {
		return
	}
	c.Rate = sum.Center
	if !math.IsInf(sum.Lo, 0) && !math.IsInf(sum.Hi, 0) {
		c.Lo, c.Hi = sum.Lo, sum.Hi // else none: too few searches for a 95% interval
	}
}

// judge says what a probe tells of the target: held (p99 within the SLO, errors within
// the threshold, the rate kept), failed (past capacity), or inconclusive (the generator
// did not keep its own schedule).
func judge(slo time.Duration, v *results.Variant, rep *results.Repetition, maxErrors float64) (outcome, string) {
	if rep.P99 > slo.Seconds() {
		return failed, fmt.Sprintf("p99 %.1f ms above %v", 1e3*rep.P99, slo)
	}
	if e, _ := v.Value(rep, units.Errors); e > maxErrors {
		return failed, fmt.Sprintf("%.2f%% errors", 100*e)
	}
	if rep.Saturation != nil {
		verdict := saturationOf(rep)
		switch {
		case verdict.State == saturation.GeneratorBehind:
			return inconclusive, verdict.Flag()
		case verdict.Marked():
			return failed, verdict.Flag()
		}
	}
	return held, ""
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
