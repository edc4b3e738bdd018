package run

import (
	"context"
	"fmt"
	"slices"
	"time"

	"dbbench/runners/loadgen"
	"dbbench/runners/questions"
	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/target"
	"dbbench/runners/units"
)

// flushEvery is how often results.json is rewritten while slices are measured; the run
// writes it once more when it ends or is interrupted.
const flushEvery = 5 * time.Second

// langPhase measures the variants of one language: every target runs at once, and
// slices follow the comparisons (walker), so both sides of a pair are measured seconds
// apart. Variants in no comparison (hello) get Reps slices, half at the start and half
// at the end.
type langPhase struct {
	r       *runner
	lang    string
	budget  time.Duration
	vs      []*results.Variant
	targets map[*results.Variant]*target.Target
	edges   []*edge
	flushed time.Time
	started time.Time // of the first slice
	slices  int
}

func (r *runner) measureLang(ctx context.Context, lang string, budget time.Duration) error {
	p := &langPhase{r: r, lang: lang, budget: budget, targets: map[*results.Variant]*target.Target{}}
	defer p.stopTargets()
	if err := p.startTargets(ctx); err != nil {
		return err
	}
	p.plan()
	solos := p.solos()
	half := (r.o.Reps + 1) / 2
	if err := p.measureSolos(ctx, solos, half); err != nil {
		return err
	}
	if err := p.walk(ctx); err != nil {
		return err
	}
	if err := p.measureSolos(ctx, solos, r.o.Reps-half); err != nil {
		return err
	}
	if r.o.Profile {
		p.profile(ctx)
	}
	for _, v := range p.vs {
		if len(v.Reps) > 0 {
			if err := r.writeHistogram(v); err != nil {
				return err
			}
		}
	}
	return r.writer.flush()
}

// profile measures one profiled slice of each valid variant, after its measured ones.
// A profile that fails is said and the run goes on: profiles explain figures, they are
// not figures.
func (p *langPhase) profile(ctx context.Context) {
	for _, v := range p.vs {
		if !v.Valid || ctx.Err() != nil {
			continue
		}
		p.r.progress.note(fmt.Sprintf("%s: profiling %s", p.lang, v.Key))
		if err := p.r.profileSlice(ctx, p.targets[v], v); err != nil {
			fmt.Fprintf(p.r.o.Log, "profile: %v\n", err)
		}
	}
}

// startTargets starts and warms up a target for every valid variant of the language.
func (p *langPhase) startTargets(ctx context.Context) error {
	for _, v := range p.r.res.Variants {
		if v.Lang != p.lang || !v.Valid {
			continue
		}
		p.r.progress.note(fmt.Sprintf("%s: starting %s", p.lang, v.Key))
		t, err := p.r.startTarget(ctx, p.r.variant(v), p.r.dsnFile)
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
	}
	return nil
}

// warm sends load for the warm-up time, so the target's pool, caches and JIT are as
// they will be for every slice.
func (p *langPhase) warm(ctx context.Context, v *results.Variant, t *target.Target) error {
	cfg := p.r.loadConfig(t, v, p.r.o.Warmup, p.r.o.Seed^0x7761726d) // "warm"
	if _, err := loadgen.Run(ctx, cfg); err != nil {
		return p.r.failRep(ctx, v, 0, "warm-up", err)
	}
	return nil
}

func (p *langPhase) stopTargets() {
	for _, t := range p.targets {
		t.Stop()
	}
}

// plan adds the language's comparisons to the results and makes an edge of each.
func (p *langPhase) plan() {
	keep := func(v *results.Variant) bool { return v.Lang == p.lang && v.Valid && p.targets[v] != nil }
	for _, pair := range questions.Pairs(p.r.res, keep) {
		c := &results.Comparison{Question: pair.Question, Base: pair.Base.Key, Other: pair.Other.Key, Pairs: []results.Pair{}}
		p.r.res.Comparisons = append(p.r.res.Comparisons, c)
		p.edges = append(p.edges, &edge{comp: c, base: pair.Base, other: pair.Other})
	}
}

// solos are the variants in no comparison.
func (p *langPhase) solos() []*results.Variant {
	var out []*results.Variant
	for _, v := range p.vs {
		if !slices.ContainsFunc(p.edges, func(e *edge) bool { return e.base == v || e.other == v }) {
			out = append(out, v)
		}
	}
	return out
}

func (p *langPhase) measureSolos(ctx context.Context, vs []*results.Variant, n int) error {
	for range n {
		for _, v := range vs {
			if !v.Valid {
				continue
			}
			if _, err := p.sliceOf(ctx, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// walk measures slices until every comparison is narrow enough or has its most pairs,
// or the budget is spent and every comparison has its fewest.
func (p *langPhase) walk(ctx context.Context) error {
	w := newWalker(p.r.o.Design, p.r.o.Seed, p.edges)
	start := time.Now()
	for !w.finished() {
		if time.Since(start) > p.budget && p.everyEdgeHas(p.r.o.MinPairs) {
			break
		}
		v := w.next()
		if v == nil {
			break
		}
		rep, err := p.sliceOf(ctx, v)
		if err != nil {
			return err
		}
		if rep == nil {
			w.failed(v)
			continue
		}
		w.measured(v, rep.Rep)
		p.judge()
	}
	return nil
}

// sliceOf measures one slice of v, and rewrites the results now and then.
func (p *langPhase) sliceOf(ctx context.Context, v *results.Variant) (*results.Repetition, error) {
	if p.slices == 0 {
		p.started = time.Now()
	}
	p.slices++
	p.r.progress.slice(p.lang, p.slices, time.Since(p.started), p.budget, p.doneEdges(), len(p.edges), v.Key)
	rep, err := p.r.slice(ctx, p.targets[v], v)
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

// judge closes every open comparison that is decided: its QPS and app CPU ratios both
// have intervals within the precision target, or it has MaxPairs.
func (p *langPhase) judge() {
	for _, e := range p.edges {
		if e.done {
			continue
		}
		n := len(e.comp.Pairs)
		if n >= p.r.o.MinPairs && p.narrow(e.comp) {
			e.done, e.comp.Reached = true, true
		}
		if n >= p.r.o.MaxPairs {
			e.done = true
		}
	}
}

// narrow says whether both the QPS and the app CPU ratio of c have a 95% interval no
// wider than ± the precision target (a unit not measured does not hold it back).
func (p *langPhase) narrow(c *results.Comparison) bool {
	for _, unit := range []string{units.QPS, units.AppCPU} {
		ratios := p.r.res.Ratios(c, unit)
		if len(ratios) == 0 && unit == units.AppCPU {
			continue
		}
		est, err := stats.PairedRatio(ratios)
		if err != nil || !est.HasInterval() || est.HalfWidth() > p.r.o.Precision {
			return false
		}
	}
	return true
}

func (p *langPhase) everyEdgeHas(n int) bool {
	for _, e := range p.edges {
		if !e.done && len(e.comp.Pairs) < n {
			return false
		}
	}
	return true
}

func (p *langPhase) doneEdges() int {
	n := 0
	for _, e := range p.edges {
		if e.done {
			n++
		}
	}
	return n
}
