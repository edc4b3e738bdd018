package run

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"dbbench/runners/judge/findings"
	"dbbench/runners/judge/questions"
	"dbbench/runners/measure/loadgen"
	"dbbench/runners/measure/target"
	"dbbench/runners/results"
)

// Pairs is the default plan: every comparison of package questions among the phase's
// variants is measured in pairs of adjacent slices (walker), so both sides are measured
// seconds apart; variants in no comparison (hello) get Reps slices, half at the start
// and half at the end; with Profile, a profiled slice of each variant ends the phase.
type Pairs struct {
	p     *Phase
	edges []*edge
}

// Measure implements Plan.
func (pl *Pairs) Measure(ctx context.Context, p *Phase) error {
	pl.p, pl.edges = p, nil
	p.SetStatus(func() string { return fmt.Sprintf("%d/%d decided", pl.doneEdges(), len(pl.edges)) })
	r := p.r
	pl.plan()
	solos := pl.solos()
	if n := pl.fewest(solos); n > 0 {
		p.SetPlanned(n, 0)
	}
	half := (r.o.Reps + 1) / 2
	if err := pl.measureSolos(ctx, solos, half); err != nil {
		return err
	}
	measure := pl.walk
	if r.o.Design == Interleave {
		measure = pl.interleave
	}
	if err := measure(ctx); err != nil {
		return err
	}
	if err := pl.measureSolos(ctx, solos, r.o.Reps-half); err != nil {
		return err
	}
	if r.o.Profile == ProfileOn {
		p.profile(ctx)
	}
	return nil
}

// profile measures one profiled slice of each valid variant, after its measured ones.
// A profile that fails is said and the run goes on: profiles explain figures, they are
// not figures.
func (p *Phase) profile(ctx context.Context) {
	for _, v := range p.vs {
		if !v.Valid || ctx.Err() != nil {
			continue
		}
		p.r.progress.note(fmt.Sprintf("%s: profiling %s", p.lang, shortName(v)))
		if err := p.profileOne(ctx, v); err != nil {
			fmt.Fprintf(p.r.o.Log, "profile: %v\n", err)
		}
	}
}

// profileOne profiles v on its target, or, where the profiler must be there from the
// start (PHP's Excimer), on a profiled target started in its place: the measured one is
// stopped first, its measuring done, so the two never share the cores or the database.
func (p *Phase) profileOne(ctx context.Context, v *results.Variant) error {
	t := p.targets[v]
	if t.AdminURL == "" && t.Profile == nil {
		t.Stop()
		o := p.r.targetOptions(v.Rev, p.r.on(v).dsnFile)
		o.Profile = true
		pt, err := target.Start(ctx, p.r.specs[v.Key], o)
		if err != nil {
			return fmt.Errorf("profiled target %s: %w", v.Key, err)
		}
		p.targets[v] = pt                                                                 // stopped with the others at the phase's end
		cfg := p.r.loadConfig(pt, v, Load{Duration: p.r.o.Warmup}, p.r.o.Seed^0x7761726d) // "warm"
		if _, err := loadgen.Run(ctx, cfg); err != nil {
			return fmt.Errorf("profiled target %s: warm-up: %w", v.Key, err)
		}
		if _, err := pt.Profile(ctx); err != nil { // the warm-up's stacks are not the profile's
			return err
		}
		t = pt
	}
	return p.r.profileSlice(ctx, t, v)
}

// plan adds the language's comparisons to the results and makes an edge of each.
func (pl *Pairs) plan() {
	keep := func(v *results.Variant) bool { return v.Lang == pl.p.lang && v.Valid && pl.p.targets[v] != nil }
	for _, pair := range questions.Pairs(pl.p.r.res, keep) {
		c := &results.Comparison{Question: pair.Question, Base: pair.Base.Key, Other: pair.Other.Key, Pairs: []results.Pair{}}
		pl.p.r.res.Comparisons = append(pl.p.r.res.Comparisons, c)
		pl.edges = append(pl.edges, &edge{comp: c, base: pair.Base, other: pair.Other})
	}
}

// fewest is how many slices and blocks the phase measures when it has no budget, as a
// sweep's runs have: interleaved, every comparison stops at its fewest pairs, one block
// each, after the solos' Reps slices. It is 0 when that is not known in advance (a
// budget, or a walk, whose pairs share slices as the walk goes).
func (pl *Pairs) fewest(solos []*results.Variant) int {
	o := pl.p.r.o
	if pl.p.budget > 0 || o.Design != Interleave {
		return 0
	}
	n := len(solos) * o.Reps
	if len(pl.edges) > 0 {
		n += o.MinPairs
	}
	return n
}

// solos are the variants in no comparison.
func (pl *Pairs) solos() []*results.Variant {
	var out []*results.Variant
	for _, v := range pl.p.vs {
		if !slices.ContainsFunc(pl.edges, func(e *edge) bool { return e.base == v || e.other == v }) {
			out = append(out, v)
		}
	}
	return out
}

func (pl *Pairs) measureSolos(ctx context.Context, vs []*results.Variant, n int) error {
	for range n {
		for _, v := range vs {
			if !v.Valid {
				continue
			}
			if _, err := pl.p.Slice(ctx, v, Load{}); err != nil {
				return err
			}
		}
	}
	return nil
}

// walk measures slices until every comparison is narrow enough or has its most pairs,
// or the budget is spent and every comparison has its fewest.
func (pl *Pairs) walk(ctx context.Context) error {
	w := newWalker(pl.p.r.o.Design, pl.p.r.o.Seed, pl.edges)
	start := time.Now()
	for !w.finished() {
		if time.Since(start) > pl.p.budget && pl.everyEdgeHas(pl.p.r.o.MinPairs) {
			break
		}
		v := w.next()
		if v == nil {
			break
		}
		rep, err := pl.p.Slice(ctx, v, Load{})
		if err != nil {
			return err
		}
		if rep == nil {
			w.failed(v)
			continue
		}
		w.measured(v, rep.Rep)
		pl.judge()
	}
	return nil
}

// interleave measures blocks of every variant still in an open comparison until each
// comparison is narrow enough or has its most pairs, or the budget is spent and every
// comparison has its fewest. A block gives each of its comparisons one pair.
func (pl *Pairs) interleave(ctx context.Context) error {
	pl.p.SetBlocksLeft(pl.blocksLeft)
	start := time.Now()
	for {
		open := openEdges(pl.edges)
		if len(open) == 0 || (time.Since(start) > pl.p.budget && pl.everyEdgeHas(pl.p.r.o.MinPairs)) {
			return nil
		}
		vs := pl.ends(open)
		reps, err := pl.p.Block(ctx, vs, Load{})
		if err != nil {
			return err
		}
		got := map[*results.Variant]*results.Repetition{}
		for i, v := range vs {
			got[v] = reps[i]
		}
		for _, e := range open {
			b, o := got[e.base], got[e.other]
			if b == nil || o == nil { // a side turned invalid
				e.done = true
				continue
			}
			e.comp.Pairs = append(e.comp.Pairs, results.Pair{Base: []int{b.Rep}, Other: []int{o.Rep}})
		}
		pl.judge()
	}
}

// ends are the variants of the comparisons es, in the phase's order.
func (pl *Pairs) ends(es []*edge) []*results.Variant {
	var out []*results.Variant
	for _, v := range pl.p.vs {
		if slices.ContainsFunc(es, func(e *edge) bool { return e.base == v || e.other == v }) {
			out = append(out, v)
		}
	}
	return out
}

// judge judges every open comparison (findings.Judge, stored with it) and closes those
// that are decided: their QPS and app CPU ratios both have intervals within the
// precision target, or they have MaxPairs.
func (pl *Pairs) judge() {
	for _, e := range pl.edges {
		if e.done {
			continue
		}
		n := len(e.comp.Pairs)
		e.comp.Finding = findings.Judge(pl.p.r.res, e.comp)
		e.width, e.widthOK = findings.HalfWidth(e.comp.Finding)
		if n >= pl.p.r.o.MinPairs && e.widthOK && e.width <= pl.p.r.o.Precision {
			e.done, e.comp.Reached = true, true
		}
		if n >= pl.p.r.o.MaxPairs {
			e.done = true
		}
	}
}

// blocksLeft estimates the interleaved blocks still to measure: each open comparison
// gains a pair a block, and an interval narrows as 1/√n, so one of half-width w at n
// pairs needs about n·(w/precision)² in all, within MinPairs and MaxPairs. One with no
// interval yet counts at MinPairs: the estimate is then a floor. Past the budget a
// comparison goes on to MinPairs only (interleave's stopping rule).
func (pl *Pairs) blocksLeft(pastBudget bool) int {
	o := pl.p.r.o
	most := 0
	for _, e := range pl.edges {
		if e.done {
			continue
		}
		n, need := len(e.comp.Pairs), o.MinPairs
		if w := e.width; e.widthOK && n > 0 && !pastBudget { // as judge last read it
			need = max(need, int(math.Ceil(float64(n)*(w/o.Precision)*(w/o.Precision))))
		}
		most = max(most, min(need, o.MaxPairs)-n)
	}
	return max(most, 0)
}

func (pl *Pairs) everyEdgeHas(n int) bool {
	for _, e := range pl.edges {
		if !e.done && len(e.comp.Pairs) < n {
			return false
		}
	}
	return true
}

func (pl *Pairs) doneEdges() int {
	n := 0
	for _, e := range pl.edges {
		if e.done {
			n++
		}
	}
	return n
}
