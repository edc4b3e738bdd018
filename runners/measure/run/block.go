package run

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/loadgen"
	"dbbench/runners/measure/procstat"
	"dbbench/runners/measure/servers"
	"dbbench/runners/measure/target"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// DefaultTurn is the shortest turn of a variant in a block: the machine's speed changes
// in episodes of seconds, so turns a tenth of a second long put both sides of every
// comparison in the same episodes (README.md, "Why pairs, and why turns").
const DefaultTurn = 100 * time.Millisecond

// TurnsPerLatency makes a slow variant's turn this many times its median latency, so
// that a turn's last requests, which drain with fewer in flight, stay a small part of
// it. Not more: php-fpm's heavy layers are slow enough that a larger multiple made
// turns of seconds, which widened their pairs' spread (README.md, "Choosing the
// design", has the figures).
const TurnsPerLatency = 4

// Block measures the variants vs together, each for the run's slice duration in all,
// in turns (turns.go) of its turn length, round and round. Every variant gets one
// repetition, figures per request as a slice's: the target's own counters cover the
// whole block (it serves nothing outside its turns), the database's and the
// generator's are read at the edges of each turn (the database's context switches in
// each variant's first turn of the block only: block.dbThreads). It returns the
// repetitions in vs's order, nil for a variant that turned invalid; an error ends the
// run.
func (p *Phase) Block(ctx context.Context, vs []*results.Variant, load Load) ([]*results.Repetition, error) {
	if p.blocks == 0 {
		p.firstBlock = time.Now()
	}
	p.progressBlock(vs)
	p.blocks++
	n := len(vs)
	b := &block{p: p, vs: vs, turn: make([]time.Duration, n), active: make([]time.Duration, n), count: make([]int, n), busy: make([]time.Duration, n), busyOK: true,
		db: make([]procstat.Light, n), gen: make([]procstat.Light, n), pooler: make([]procstat.Light, n), server: make([]servers.Counts, n), dbOK: true, genOK: true, poolerOK: true, serverOK: true,
		dbSwitches: make([]int64, n), sampled: make([]int64, n), skip: make([]bool, n),
		before: make([]*counterSample, n), res: make([]*loadgen.Result, n), errs: make([]error, n), gained: make([]int64, n)}
	for i, v := range vs {
		b.turn[i] = max(p.r.o.Turn, TurnsPerLatency*p.latency[v])
	}
	defer p.r.closeLedger()
	err := b.run(ctx, load)
	for i, v := range vs {
		p.r.keep(v, b.res[i])
	}
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err() // a block cut short is not recorded
	}
	out := make([]*results.Repetition, n)
	for i := range vs {
		if b.skip[i] {
			continue
		}
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
	// generator did during them, the database's context switches in its first turn and
	// the requests of that turn, counters before, the generator's result; skip marks a
	// variant whose counters could not be read (it is invalid, and takes no turns).
	active []time.Duration
	count  []int
	// busy is the machine's busy CPU time during each variant's turns (all processes),
	// for the share other processes took (outside); busyOK, every reading succeeded.
	busy                []time.Duration
	busyOK              bool
	db, gen, pooler     []procstat.Light
	server              []servers.Counts // the server's dials and prepares in the variant's turns
	serverOK            bool
	dbOK, genOK         bool // every reading of the role's counters succeeded
	poolerOK            bool
	dbSwitches, sampled []int64
	skip                []bool
	before              []*counterSample
	res                 []*loadgen.Result
	errs                []error
	// The lost-update check (visits.go): visits the fixture rows gained in each update
	// variant's turns, from the sum read before the first turn and after each of theirs
	// (no other op changes it), on each server (by Database); visitsErr, a reading
	// that failed.
	gained    []int64
	visits    map[string]int64
	visitsErr error
}

// readyTimeout bounds the wait for the generators to connect and park at their gates.
const readyTimeout = 10 * time.Second

// run starts one gated generator per variant, waits until every connection waits at
// its gate (connecting is not measured), reads the targets' counters, and takes turns
// until every variant has had the slice duration. An error ends the run.
func (b *block) run(ctx context.Context, load Load) error {
	r := b.p.r
	t := newTurns(len(b.vs))
	conns := make([]int, len(b.vs))
	var wg sync.WaitGroup
	for i, v := range b.vs {
		cfg := r.loadConfig(b.p.targets[v], v, load, r.o.Seed+uint64(len(v.Reps)+1)*0x9e3779b9)
		cfg.Duration, cfg.Gate = 0, t.gate(i)
		conns[i] = cfg.Connections
		wg.Go(func() { b.res[i], b.errs[i] = loadgen.Run(ctx, cfg) })
	}
	defer wg.Wait()
	defer t.end()
	t.ready(ctx, conns, readyTimeout)
	if err := b.countersBefore(ctx); err != nil {
		return err
	}
	b.visits = map[string]int64{}
	for _, v := range b.vs {
		if _, read := b.visits[v.Database]; r.isUpdate(v) && !read && b.visitsErr == nil {
			b.visits[v.Database], b.visitsErr = r.visitsSum(ctx, r.on(v))
		}
	}
	if err := r.openLedger(ctx, b.vs); err != nil {
		if derr := r.databaseAlive(ctx); derr != nil {
			return derr
		}
		fmt.Fprintf(r.o.Log, "note: %v: this block's writes are not counted\n", err)
	}
	d := cmp.Or(load.Duration, r.o.Duration)
	b.started = time.Now().UTC()
	for ctx.Err() == nil {
		i := b.next(d)
		if i < 0 {
			return nil
		}
		var threads *procstat.Counts
		if b.count[i] == 0 { // the variant's first turn of the block is the sample
			threads = b.dbThreads(i)
		}
		sc0 := r.on(b.vs[i]).serverCounts(ctx) // outside the light readings: its CPU is not the turn's
		db0, pooler0, gen0 := b.light(i)
		busy0, err0 := procstat.SystemBusy()
		took, admitted := t.take(ctx, i, b.turn[i])
		busy1, err1 := procstat.SystemBusy()
		db1, pooler1, gen1 := b.light(i)
		sc1 := r.on(b.vs[i]).serverCounts(ctx)
		if b.serverOK = b.serverOK && sc0 != nil && sc1 != nil; b.serverOK {
			b.server[i].Connections += sc1.Connections - sc0.Connections
			b.server[i].Prepares += sc1.Prepares - sc0.Prepares
			b.server[i].PreparesOK = sc1.PreparesOK
		}
		b.busy[i] += busy1 - busy0
		b.busyOK = b.busyOK && err0 == nil && err1 == nil
		b.active[i] += took
		b.count[i]++
		b.db[i], b.gen[i] = b.db[i].Add(db1.Sub(db0)), b.gen[i].Add(gen1.Sub(gen0))
		b.pooler[i] = b.pooler[i].Add(pooler1.Sub(pooler0))
		if v := b.vs[i]; r.isUpdate(v) && b.visitsErr == nil { // after the turn's readings: not its cost
			var now int64
			now, b.visitsErr = r.visitsSum(ctx, r.on(v))
			b.gained[i], b.visits[v.Database] = b.gained[i]+now-b.visits[v.Database], now
		}
		if threads != nil {
			if end := b.dbThreads(i); end != nil {
				b.dbSwitches[i], b.sampled[i] = end.Sub(threads).Voluntary, admitted
			}
		}
	}
	return nil
}

// next is the variant whose turn it is: the one with the least turn time so far (the
// first of those, so the variants go round in order); -1 once every one has had d.
func (b *block) next(d time.Duration) int {
	i := -1
	for j := range b.vs {
		if !b.skip[j] && (i < 0 || b.active[j] < b.active[i]) {
			i = j
		}
	}
	if i < 0 || b.active[i] >= d {
		return -1
	}
	return i
}

// countersBefore reads each target's counters once its generator is connected; a
// target whose counters cannot be read is invalid and skipped.
func (b *block) countersBefore(ctx context.Context) error {
	r := b.p.r
	for i, v := range b.vs {
		pids := b.p.targets[v].PIDs()
		b.p.targets[v].ResetPeakRSS(pids)
		c, err := r.appCounters(ctx, b.p.targets[v], pids)
		if err != nil {
			if ferr := r.failRep(ctx, v, len(v.Reps)+1, "read counters", err); ferr != nil {
				return ferr
			}
			b.skip[i] = true
			continue
		}
		b.before[i] = c
	}
	return nil
}

// light reads the database's (variant i's server's), its pooler's and this process's
// light counters around a turn; the database's and the pooler's are zero when not ours
// to read. A failed reading spoils the role's figures for the whole block (dbOK,
// poolerOK, genOK).
func (b *block) light(i int) (db, pooler, gen procstat.Light) {
	var err error
	d := b.p.r.on(b.vs[i])
	if l, ok, err := d.light(); ok {
		db = l
		if err != nil {
			b.dbOK = false
		}
	}
	if pid := d.poolerPID(); pid != 0 {
		if pooler, err = procstat.TakeLight(pid); err != nil {
			b.poolerOK = false
		}
	}
	if gen, err = procstat.TakeLight(0); err != nil {
		b.genOK = false
	}
	return db, pooler, gen
}

// dbThreads reads every thread of the database, for its context switches: with a
// thread per connection that is hundreds of files, too many to read at every turn, so
// each variant's first turn of a block is the sample (nil when not ours to read).
func (b *block) dbThreads(i int) *procstat.Counts {
	if pids := b.p.r.on(b.vs[i]).pids(); pids != nil {
		c, _ := procstat.TakeCounts(pids...)
		return c
	}
	return nil
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
	res.Elapsed, res.CPU = b.active[i], b.gen[i].CPU
	res.QPS = float64(res.Requests) / b.active[i].Seconds()
	after, afterErr := r.appCounters(ctx, t, t.PIDs())
	if err := t.Alive(); err != nil && afterErr == nil {
		afterErr = err
	}
	rss, _ := t.PeakRSS(t.PIDs())
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
		if r.on(v).db.PID != 0 && b.dbOK {
			rep.DBCPU = per(b.db[i].CPU.Seconds())
			if b.sampled[i] > 0 {
				rep.Counts[units.Switches("db")] = float64(b.dbSwitches[i]) / float64(b.sampled[i])
			}
		}
		if b.serverOK {
			serverCounts(rep, &servers.Counts{}, &b.server[i], res.Requests)
		}
		if r.on(v).poolerPID() != 0 && b.poolerOK {
			rep.Counts[units.PoolerCPU] = per(b.pooler[i].CPU.Seconds())
		}
		if b.genOK {
			rep.Counts[units.Syscalls("gen")] = per(float64(b.gen[i].Syscalls))
			rep.Counts[units.Switches("gen")] = per(float64(b.gen[i].Voluntary))
		}
	}
	if b.busyOK {
		rep.OutsideCPU = outside(b.busy[i], rep, res.Requests, b.active[i])
	}
	rep.Turns = &results.Turns{Block: b.p.blocks, Length: b.turn[i].Seconds(), Count: b.count[i]}
	what := fmt.Sprintf("block, slice %d", n)
	if !r.record(v, b.p.targets[v], rep, res, afterErr, what) {
		return nil, r.databaseAlive(ctx)
	}
	if r.isUpdate(v) {
		if b.visitsErr != nil {
			return nil, r.failRep(ctx, v, n, "lost-update check", b.visitsErr)
		}
		if !r.judgeVisits(v, rep, res, b.gained[i], what) {
			return nil, nil
		}
	}
	b.p.latency[v] = time.Duration(rep.P50 * float64(time.Second))
	return rep, nil
}

// progressBlock says which block is measured.
func (p *Phase) progressBlock(vs []*results.Variant) {
	n := blockNamesShown
	if p.r.o.Verbose {
		n = len(vs)
	}
	p.progress(blockNames(vs, n))
}

// blockNamesShown is how many of a block's variants a progress line names without -v:
// a line that named all of them, or even three, ran far past maxLine (README.md,
// "Measured").
const blockNamesShown = 1

// blockNames names the first n of vs by their values without the keys or the language
// ("nethttp/raw/prepare/persistent/64"), and counts the rest.
func blockNames(vs []*results.Variant, n int) string {
	var names []string
	for _, v := range vs[:min(n, len(vs))] {
		names = append(names, shortName(v))
	}
	s := strings.Join(names, " · ")
	if len(vs) > n {
		s += fmt.Sprintf(" +%d more", len(vs)-n)
	}
	return s
}

// shortName is a variant in a progress line that has said its language: its key's
// values without it ("nethttp/raw/prepare/persistent/64").
func shortName(v *results.Variant) string {
	return strings.TrimPrefix(matrix.ShortKey(v.Key), v.Lang+"/")
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
	if len(pids) == 0 { // every process has exited: say how, where the target knows
		if err := t.Alive(); err != nil {
			return nil, fmt.Errorf("%w: %w", procstat.ErrNotFound, err)
		}
		return nil, procstat.ErrNotFound
	}
	app, err := t.Counts(pids)
	if err != nil {
		return nil, err
	}
	c := &counterSample{app: app}
	if t.AdminURL != "" { // a Go target: its pool's waits and holds
		c.pool, _ = target.ReadPool(ctx, t.AdminURL)
	}
	if t.Runtime != nil {
		if s, err := t.Runtime(ctx); err == nil {
			c.runtime = &s
		}
	}
	return c, nil
}
