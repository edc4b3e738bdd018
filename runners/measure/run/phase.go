package run

import (
	"context"
	"fmt"
	"time"

	"dbbench/runners/measure/loadgen"
	"dbbench/runners/measure/target"
	"dbbench/runners/results"
)

// flushEvery is how often results.json is rewritten while slices are measured; the run
// writes it once more when it ends or is interrupted.
const flushEvery = 5 * time.Second

// A Plan measures the variants of one language once all their targets are up and warm:
// Pairs, the default, measures the comparisons in pairs of adjacent slices; a sweep
// brings its own (a capacity search, a concurrency series).
type Plan interface {
	Measure(ctx context.Context, p *Phase) error
}

// Phase is the measurement of one language: every valid variant's target runs at once,
// and a Plan chooses the slices.
type Phase struct {
	r       *runner
	lang    string
	budget  time.Duration
	vs      []*results.Variant
	targets map[*results.Variant]*target.Target
	flushed time.Time
	started time.Time // of the first slice
	slices  int
	blocks  int
	status  func() string // what the plan says of its progress, for the progress line
	// blocksLeft is the plan's estimate of the blocks still to measure (SetBlocksLeft),
	// from which the progress line estimates the time left; firstBlock is when the
	// first block started, for their pace.
	blocksLeft func(pastBudget bool) int
	firstBlock time.Time
	planned    int           // slices the plan will measure, when it knows (SetPlanned)
	each       time.Duration // and its estimate of one, for the time left before a pace
	// latency is each variant's median latency in its last measurement (the warm-up at
	// first): a block sets its turn from it.
	latency map[*results.Variant]time.Duration
}

// Load is the load of a slice; a zero field takes the run's setting (its connections,
// its rate, its slice duration).
type Load struct {
	Connections int
	Rate        float64 // requests per second in all, open loop; 0 is closed loop
	Duration    time.Duration
}

// Lang is the phase's language.
func (p *Phase) Lang() string { return p.lang }

// Variants are the valid variants whose targets run, in the run's order.
func (p *Phase) Variants() []*results.Variant { return p.vs }

// Budget is the phase's share of the run's budget.
func (p *Phase) Budget() time.Duration { return p.budget }

// Options are the run's options, for a plan's defaults.
func (p *Phase) Options() *Options { return &p.r.o }

// Note tells the person watching the run what the plan does.
func (p *Phase) Note(s string) { p.r.progress.note(s) }

// SetPlanned says how many slices the plan will measure, so that the progress line
// gives the time left instead of the budget (a sweep has none); each, the plan's
// estimate of one slice, gives it on the first slice, before there is a pace (0: "?").
func (p *Phase) SetPlanned(slices int, each time.Duration) { p.planned, p.each = slices, each }

// SetBlocksLeft gives the progress line the plan's estimate of the blocks still to
// measure: it says the time left at the blocks' pace, beside the budget's bound.
func (p *Phase) SetBlocksLeft(f func(pastBudget bool) int) { p.blocksLeft = f }

// SetStatus sets what the progress line says of the plan's progress.
func (p *Phase) SetStatus(f func() string) { p.status = f }

// measureLang starts the language's targets and measures them with the plan; it
// returns how long the plan took, so a phase that finished early leaves its unspent
// budget to the next.
func (r *runner) measureLang(ctx context.Context, lang string, budget time.Duration) (time.Duration, error) {
	p := &Phase{r: r, lang: lang, budget: budget, targets: map[*results.Variant]*target.Target{},
		latency: map[*results.Variant]time.Duration{}}
	defer p.stopTargets()
	if err := p.startTargets(ctx); err != nil {
		return 0, err
	}
	plan := r.o.Plan
	if plan == nil {
		plan = &Pairs{}
	}
	start := time.Now()
	if err := plan.Measure(ctx, p); err != nil {
		return 0, err
	}
	took := time.Since(start)
	for _, v := range p.vs {
		p.recordWorkerMemory(v)
		if len(v.Reps) > 0 {
			if err := r.writeHistogram(v); err != nil {
				return 0, err
			}
		}
	}
	return took, r.writer.flush()
}

// startTargets starts and warms up a target for every valid variant of the language.
func (p *Phase) startTargets(ctx context.Context) error {
	for _, v := range p.r.res.Variants {
		if v.Lang != p.lang || !v.Valid {
			continue
		}
		p.r.progress.note(fmt.Sprintf("%s: starting %s", p.lang, shortName(v)))
		held0, held0OK := p.r.on(v).privateMemory()
		t, err := p.r.startTarget(ctx, p.r.variant(v), p.r.on(v).dsnFile)
		if err != nil {
			if err := p.r.failRep(ctx, v, 0, "target did not start", err); err != nil {
				return err
			}
			continue
		}
		p.targets[v] = t
		p.vs = append(p.vs, v)
		if err := p.warm(ctx, v, t); err != nil {
			return err
		}
		// Nothing else uses the server while one target starts and warms up: what its
		// private memory grew by is this target's connections and their statements.
		if held1, ok := p.r.on(v).privateMemory(); ok && held0OK {
			v.ServerMemory = held1 - held0
		}
	}
	return nil
}

// warm sends load for the warm-up time, so the target's pool, caches and JIT are as
// they will be for every slice.
func (p *Phase) warm(ctx context.Context, v *results.Variant, t *target.Target) error {
	cfg := p.r.loadConfig(t, v, Load{Duration: p.r.o.Warmup}, p.r.o.Seed^0x7761726d) // "warm"
	res, err := loadgen.Run(ctx, cfg)
	if err != nil {
		return p.r.failRep(ctx, v, 0, "warm-up", err)
	}
	if res, err = p.warmTexts(ctx, v, t, res); err != nil {
		return p.r.failRep(ctx, v, 0, "warm-up", err)
	}
	if res.Latency.TotalCount() > 0 {
		p.latency[v] = time.Duration(res.Latency.ValueAtQuantile(50))
	}
	return nil
}

// textsWarmth is how many times over a statement working set's warm-up reads each
// (connection, text) pair on average: with uniform draws, each is read at least once
// with probability 1 − e^−5 ≈ 99.3%, so the caches are as full as they will get and
// the slices measure their steady state, not their filling (a first try without it:
// database/sql's prepares per request fell from 0.78 to 0.001 over 21 slices of
// texts1000).
const textsWarmth = 5

// warmTexts goes on warming a variant that reads through a working set of statement
// texts until textsWarmth × pool × texts requests have been sent in all, counting the
// first warm-up's (res); it returns the last round's result.
func (p *Phase) warmTexts(ctx context.Context, v *results.Variant, t *target.Target, res *loadgen.Result) (*loadgen.Result, error) {
	need := int64(textsWarmth * v.Pool * v.Texts)
	for round, sent := uint64(1), res.Requests; sent < need && res.Requests > 0; round, sent = round+1, sent+res.Requests {
		rate := float64(res.Requests) / res.Elapsed.Seconds()
		d := time.Duration(float64(need-sent) / rate * float64(time.Second))
		// A stream of its own each round: the same seed would draw the same ids again.
		cfg := p.r.loadConfig(t, v, Load{Duration: min(max(d, p.r.o.Warmup), time.Minute)}, p.r.o.Seed^0x7761726d^round<<32)
		var err error
		if res, err = loadgen.Run(ctx, cfg); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// recordWorkerMemory writes what each process of v's PHP pool holds for itself, after
// the plan's slices; a reading that fails leaves it unknown and says so.
func (p *Phase) recordWorkerMemory(v *results.Variant) {
	t := p.targets[v]
	if t == nil || !v.Valid {
		return
	}
	private, n, err := t.WorkerMemory()
	switch {
	case err != nil:
		p.r.progress.note(fmt.Sprintf("%s: memory per worker unknown: %v", shortName(v), err))
	case n > 0:
		v.WorkerMemory = &results.WorkerMemory{Private: private, Processes: n}
	}
}

func (p *Phase) stopTargets() {
	for _, t := range p.targets {
		t.Stop()
	}
}

// Slice measures one slice of v under load (package run's slice: a lead-in, then the
// measured window with every counter around it) and rewrites the results now and then.
// It returns nil when v turned out invalid (the reason is in v); an error ends the run.
func (p *Phase) Slice(ctx context.Context, v *results.Variant, load Load) (*results.Repetition, error) {
	p.progress(shortName(v))
	rep, err := p.r.slice(ctx, p.targets[v], v, load)
	if err != nil {
		return nil, err
	}
	if time.Since(p.flushed) > flushEvery {
		p.flushed = time.Now()
		if err := p.r.writer.flush(); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// progress counts a slice or block, what it measures, and says so.
func (p *Phase) progress(what string) {
	if p.slices == 0 {
		p.started = time.Now()
	}
	p.slices++
	status := ""
	if p.status != nil {
		status = p.status()
	}
	spent := time.Since(p.started)
	if p.planned > 0 {
		p.r.progress.planned(p.lang, p.slices, p.planned, spent, p.each, status, what)
		return
	}
	estimate := time.Duration(-1) // none
	if p.blocksLeft != nil && p.blocks > 0 {
		estimate = time.Since(p.firstBlock) / time.Duration(p.blocks) * time.Duration(p.blocksLeft(spent >= p.budget))
	}
	p.r.progress.slice(p.lang, p.slices, spent, p.budget, estimate, status, what)
}
