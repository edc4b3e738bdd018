package run

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"dbbench/runners/loadgen"
	"dbbench/runners/procstat"
	"dbbench/runners/results"
	"dbbench/runners/target"
	"dbbench/runners/units"
)

// DefaultTurn is the shortest turn of a variant in a block (README.md, "Design"): the
// machine's speed changes in episodes of seconds, so turns a tenth of a second long
// put both sides of every comparison in the same episodes.
const DefaultTurn = 100 * time.Millisecond

// TurnsPerLatency makes a slow variant's turn this many times its median latency, so
// the turn's edges (its first requests queue behind nothing, its last drain) stay a
// small part of it.
const TurnsPerLatency = 20

// Block measures the variants vs together, each for the run's slice duration in all,
// in turns (turns.go) of its turn length, round and round. Every variant gets one
// repetition, figures per request as a slice's: the target's own counters cover the
// whole block (it serves nothing outside its turns), the database's and the
// generator's counters are read at the edges of each turn. It returns the
// repetitions in vs's order, nil for a variant that turned invalid; an error ends the
// run.
func (p *Phase) Block(ctx context.Context, vs []*results.Variant, load Load) ([]*results.Repetition, error) {
	r := p.r
	p.progressBlock(vs)
	p.blocks++
	b := &block{p: p, vs: vs, turn: make([]time.Duration, len(vs)), active: make([]time.Duration, len(vs)), count: make([]int, len(vs)),
		db: make([]procstat.CountsDelta, len(vs)), gen: make([]procstat.CountsDelta, len(vs)),
		before: make([]*counterSample, len(vs)), res: make([]*loadgen.Result, len(vs)), errs: make([]error, len(vs))}
	for i, v := range vs {
		b.turn[i] = max(r.o.Turn, TurnsPerLatency*p.latency[v])
		pids := p.targets[v].PIDs()
		procstat.ResetPeakRSS(pids...)
		c, err := r.appCounters(ctx, p.targets[v], pids)
		if err != nil {
			return nil, r.failRep(ctx, v, len(v.Reps)+1, "read counters", err)
		}
		b.before[i] = c
	}
	b.started = time.Now().UTC()
	b.run(ctx, load)
	if ctx.Err() != nil {
		return nil, ctx.Err() // a block cut short is not recorded
	}
	out := make([]*results.Repetition, len(vs))
	for i := range vs {
		rep, err := b.repetition(ctx, i)
		if err != nil {
			return nil, err
		}
		out[i] = rep
	}
	return out, p.flushNowAndThen()
}

// block is one block under way.
type block struct {
	p       *Phase
	vs      []*results.Variant
	turn    []time.Duration
	started time.Time
	// By variant: time its turns took (open and draining), what the database and the
	// generator did during them, counters before, the generator's result.
	active  []time.Duration
	count   []int
	db, gen []procstat.CountsDelta
	before  []*counterSample
	res     []*loadgen.Result
	errs    []error
}

// run starts one gated generator per variant and takes turns until every variant has
// had the slice duration.
func (b *block) run(ctx context.Context, load Load) {
	r := b.p.r
	t := newTurns()
	var wg sync.WaitGroup
	for i, v := range b.vs {
		cfg := r.loadConfig(b.p.targets[v], v, load, r.o.Seed+uint64(len(v.Reps)+1)*0x9e3779b9)
		cfg.Duration, cfg.Gate = 0, t.gate(i)
		wg.Go(func() { b.res[i], b.errs[i] = loadgen.Run(ctx, cfg) })
	}
	d := load.Duration
	if d == 0 {
		d = r.o.Duration
	}
	db, gen := b.roles()
	for k := 0; ctx.Err() == nil; k++ {
		i := k % len(b.vs)
		if k >= len(b.vs) && i == 0 && b.active[0] >= d {
			break // every variant has had its time (the first is always ahead)
		}
		b.active[i] += t.take(ctx, i, b.turn[i])
		b.count[i]++
		db1, gen1 := b.roles()
		if db != nil && db1 != nil {
			b.db[i] = b.db[i].Add(db1.Sub(db))
		}
		if gen != nil && gen1 != nil {
			b.gen[i] = b.gen[i].Add(gen1.Sub(gen))
		}
		db, gen = db1, gen1
	}
	t.end()
	wg.Wait()
}

// roles reads the database's and this process's counters at the edge of a turn (one
// reading ends a turn and starts the next); the database's are nil when it is not
// ours to read.
func (b *block) roles() (db, gen *procstat.Counts) {
	if pid := b.p.r.db.PID; pid != 0 {
		db, _ = procstat.TakeCounts(pid)
	}
	gen, _ = procstat.TakeCounts(os.Getpid())
	return db, gen
}

// repetition records variant i's share of the block, as a slice records its own.
func (b *block) repetition(ctx context.Context, i int) (*results.Repetition, error) {
	r, v, t := b.p.r, b.vs[i], b.p.targets[b.vs[i]]
	n := len(v.Reps) + 1
	res, err := b.res[i], b.errs[i]
	if err != nil || res == nil {
		return nil, r.failRep(ctx, v, n, "load", err)
	}
	// The generator ran for the whole block; the variant was served in its turns.
	res.Elapsed, res.CPU = b.active[i], b.gen[i].Run
	res.QPS = float64(res.Requests) / b.active[i].Seconds()
	after, afterErr := r.appCounters(ctx, t, t.PIDs())
	if err := t.Alive(); err != nil && afterErr == nil {
		afterErr = err
	}
	rss, _ := procstat.PeakRSS(t.PIDs()...)
	rep, err := newRepetition(n, b.started, res)
	if err != nil {
		return nil, err
	}
	rep.AppRSS = rss
	if afterErr == nil {
		after.sub(b.before[i], res.Requests, rep)
	}
	if res.Requests > 0 && rep.Counts != nil {
		per := func(x float64) float64 { return x / float64(res.Requests) }
		if r.db.PID != 0 {
			rep.DBCPU = per(b.db[i].Run.Seconds())
			rep.Counts[units.Syscalls("db")] = per(float64(b.db[i].Syscalls()))
			rep.Counts[units.Switches("db")] = per(float64(b.db[i].Voluntary))
		}
		rep.Counts[units.Syscalls("gen")] = per(float64(b.gen[i].Syscalls()))
		rep.Counts[units.Switches("gen")] = per(float64(b.gen[i].Voluntary))
	}
	rep.Turns = &results.Turns{Block: b.p.blocks, Length: b.turn[i].Seconds(), Count: b.count[i]}
	if !r.record(v, rep, res, afterErr, fmt.Sprintf("block, repetition %d", n)) {
		return nil, r.databaseAlive(ctx)
	}
	b.p.latency[v] = time.Duration(rep.P50 * float64(time.Second))
	return rep, nil
}

// progressBlock says which block is measured.
func (p *Phase) progressBlock(vs []*results.Variant) {
	layers := make([]string, len(vs))
	for i, v := range vs {
		layers[i] = strings.TrimPrefix(v.Key, "lang="+v.Lang+"/")
	}
	p.progress(fmt.Sprintf("block of %d: %s", len(vs), strings.Join(layers, " · ")))
}

// flushNowAndThen rewrites results.json when it has not been for a while.
func (p *Phase) flushNowAndThen() error {
	if time.Since(p.flushed) > flushEvery {
		p.flushed = time.Now()
		return p.r.writer.flush()
	}
	return nil
}

// appCounters reads the counters of the target alone: those of the database and the
// generator are read per turn in a block.
func (r *runner) appCounters(ctx context.Context, t *target.Target, pids []int) (*counterSample, error) {
	if len(pids) == 0 {
		return nil, procstat.ErrNotFound
	}
	app, err := procstat.TakeCounts(pids...)
	if err != nil {
		return nil, err
	}
	c := &counterSample{app: app, pool: dbStats(t.AdminURL)}
	if t.Runtime != nil {
		if s, err := t.Runtime(ctx); err == nil {
			c.runtime = &s
		}
	}
	return c, nil
}
