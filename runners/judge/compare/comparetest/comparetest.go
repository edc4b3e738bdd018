// Package comparetest builds synthetic runs for the tests of package compare and of
// `dbbench compare`: the shape of a real run (two languages, hello and database
// variants, comparisons measured as pairs, yardstick readings, counts per request,
// round trips) with figures drawn from a seeded random source, and the changes the
// tests apply to them (a slower machine, a slower variant, more commands).
//
// The noise imitates the reference machine's: each pair of slices shares a pace (the
// host's drift, 3%) that moves QPS and costs together, and each slice adds its own 1.5%.
package comparetest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/judge/questions"
	"dbbench/runners/measure/yardstick"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// Pairs is the number of pairs of every comparison, and HelloReps the slices of each
// hello variant.
const (
	Pairs     = 8
	HelloReps = 8
)

// variant is a synthetic variant's true figures.
type variant struct {
	lang, server, layer, stmt, conn string
	pool                            int
	qps, appUS, dbUS                float64            // req/s, app and db CPU µs per request
	commands                        map[string]float64 // per request, on the wire
	allocs, bytes, syscalls         float64            // counts per request (Go; PHP's are not counted)
}

var variants = []variant{
	{"go", "nethttp", "hello", "none", "none", 64, 40000, 25, 0, nil, 21, 2268, 2.9},
	{"go", "nethttp", "raw", "prepare", "persistent", 64, 8000, 98, 124, cmds("Prepare", "Execute", "Close stmt"), 63, 4537, 11.6},
	{"go", "nethttp", "raw", "interpolate", "persistent", 64, 12000, 64, 75, cmds("Query"), 60, 4392, 7.8},
	{"go", "nethttp", "raw", "interpolate", "per-request", 64, 5000, 140, 210, cmds("Connect", "Query", "Quit"), 94, 10856, 12.1},
	{"go", "nethttp", "orm", "prepare", "persistent", 64, 7500, 110, 125, cmds("Prepare", "Execute", "Close stmt"), 92, 5087, 11.5},
	{"go", "nethttp", "orm", "interpolate", "persistent", 64, 11000, 75, 76, cmds("Query"), 90, 4965, 7.7},
	{"go", "nethttp", "gorm", "interpolate", "persistent", 64, 9500, 93, 83, cmds("Query"), 120, 6100, 7.8},
	{"php", "fpm", "hello", "none", "none", 8, 9000, 110, 0, nil, 0, 0, 10},
	{"php", "fpm", "raw", "interpolate", "persistent", 8, 5100, 245, 107, cmds("Ping", "Query"), 0, 0, 10},
	{"php", "fpm", "raw", "prepare", "persistent", 8, 4200, 290, 160, cmds("Ping", "Prepare", "Execute", "Close stmt"), 0, 0, 10},
	{"php", "fpm", "orm", "interpolate", "persistent", 8, 1860, 805, 207, cmds("Init DB", "Query", "Query", "Query"), 0, 0, 10},
}

func cmds(names ...string) map[string]float64 {
	m := map[string]float64{}
	for _, n := range names {
		m[n]++
	}
	return m
}

// Key is a variant's key.
func Key(lang, server, layer, stmt, conn string, pool int) string {
	return fmt.Sprintf("lang=%s/server=%s/layer=%s/stmt=%s/conn=%s/pool=%d", lang, server, layer, stmt, conn, pool)
}

// Gorm is the key of the one variant that is no comparison's reference, so a change of
// it moves only its own rows.
var Gorm = Key("go", "nethttp", "gorm", "interpolate", "persistent", 64)

// builder draws a run's slices.
type builder struct {
	rng *rand.Rand
	// kernel draws the kernel part's noise, apart from rng so that everything else a
	// seed gave before the kernel part existed stays as it was.
	kernel *rand.Rand
	run    *results.Run
	truth  map[string]variant
	clock  time.Time
}

// Run builds a complete run whose noise comes from seed: the same seed, the same run.
func Run(seed uint64) *results.Run {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	b := &builder{rng: rand.New(rand.NewPCG(seed, 0x636f6d70)), kernel: rand.New(rand.NewPCG(seed, 0x6b65726e)), truth: map[string]variant{}, clock: start}
	b.run = &results.Run{
		Schema: results.Schema, Started: start, Status: results.Complete,
		Environment: map[string]string{"cpu": "AMD EPYC", "cpu-count": "2", "kernel": "6.18.44", "dbbench-commit": "0123456789abcdef", "go": "go1.26.8"},
		Settings: results.Settings{Preset: "quick", Provider: "embedded", Rows: 100000, Connections: 64, KeepAlive: true,
			Duration: "1s", Reps: HelloReps, Seed: 1, RoundtripRequests: 100, MaxErrorRate: 0.001, SaturatedP99: "1s",
			Pairing: &results.Pairing{Design: "alternate", Slice: "1s", LeadIn: "150ms", Precision: 0.02, MinPairs: 6, MaxPairs: 60, Budget: "5m"}},
		Langs: map[string]*results.Lang{
			"go":  {Baseline: "raw", Default: "nethttp", Servers: map[string]*results.Server{"nethttp": {Launcher: "go"}}},
			"php": {Baseline: "raw", Default: "fpm", Servers: map[string]*results.Server{"fpm": {Launcher: "php-fpm"}}},
		},
		Yardstick: yardstick.New(),
	}
	for _, v := range variants {
		b.run.Variants = append(b.run.Variants, b.variant(v))
	}
	b.reading("start")
	for _, lang := range []string{"go", "php"} {
		b.measure(lang)
		b.reading("after " + lang)
	}
	b.reading("end")
	b.run.Finished = b.clock
	return b.run
}

func (b *builder) variant(t variant) *results.Variant {
	k := Key(t.lang, t.server, t.layer, t.stmt, t.conn, t.pool)
	b.truth[k] = t
	v := &results.Variant{
		Name:         "BenchmarkSingleRow/" + k,
		Key:          k,
		Variant:      matrix.Variant{Lang: t.lang, Server: t.server, Layer: t.layer, Stmt: t.stmt, Conn: t.conn, Pool: t.pool},
		DB:           t.layer != "hello",
		Valid:        true,
		Verification: &results.Verification{Bodies: 20, BadID: 400, UnknownID: 404},
	}
	if v.DB {
		v.Kind = map[string]string{"raw": "raw", "orm": "orm", "gorm": "orm"}[t.layer]
		wire, log := map[string]float64{}, map[string]float64{}
		for c, n := range t.commands {
			wire[c] = n
			if c != "Ping" { // the general log never shows a ping
				log[c] = n
			}
		}
		v.Roundtrips = &results.Roundtrips{Requests: 100, Log: log, Wire: wire, Match: true, BytesToDB: 60, BytesFromDB: 120}
	}
	return v
}

// measure draws the slices of one language: its hello variant alone, then Pairs pairs
// of every comparison, each pair in a random order under one shared pace.
func (b *builder) measure(lang string) {
	for _, v := range b.run.Variants {
		if v.Lang == lang && !v.DB {
			for range HelloReps {
				b.slice(v, b.pace())
			}
		}
	}
	for _, p := range questions.Pairs(b.run, func(v *results.Variant) bool { return v.Lang == lang }) {
		c := &results.Comparison{Question: p.Question, Base: p.Base.Key, Other: p.Other.Key, Reached: true}
		for range Pairs {
			pace := b.pace()
			first, second := p.Base, p.Other
			if b.rng.IntN(2) == 1 {
				first, second = second, first
			}
			r1, r2 := b.slice(first, pace), b.slice(second, pace)
			if first == p.Other {
				r1, r2 = r2, r1
			}
			c.Pairs = append(c.Pairs, results.Pair{Base: []int{r1}, Other: []int{r2}})
		}
		b.run.Comparisons = append(b.run.Comparisons, c)
	}
}

func (b *builder) pace() float64 { return math.Exp(0.03 * b.rng.NormFloat64()) }

// slice appends one repetition of v at pace (above 1: the host ran fast) and returns its
// number.
func (b *builder) slice(v *results.Variant, pace float64) int {
	t := b.truth[v.Key]
	s := pace * math.Exp(0.015*b.rng.NormFloat64())
	near := func(x float64) float64 { return x * (1 + 0.003*b.rng.NormFloat64()) }
	rep := &results.Repetition{
		Rep: len(v.Reps) + 1, Started: b.clock, Seconds: 1, QPS: t.qps * s,
		P50: 64 / (t.qps * s) * 0.9, P90: 64 / (t.qps * s) * 1.6, P99: 64 / (t.qps * s) * 2.8,
		P999: 64 / (t.qps * s) * 4, Max: 64 / (t.qps * s) * 6,
		AppCPU: t.appUS * 1e-6 / s, DBCPU: t.dbUS * 1e-6 / s, GenCPU: 18e-6 / s,
		Counts: map[string]float64{},
	}
	if !v.DB {
		rep.DBCPU = 0.1e-6 / s
	}
	if v.Lang == "go" { // PHP's sockets use recv and send: its syscalls are not counted
		rep.Counts[units.Allocs], rep.Counts[units.AllocBytes] = near(t.allocs), near(t.bytes)
		rep.Counts[units.Syscalls("app")] = near(t.syscalls)
	}
	rep.Requests = int64(rep.QPS)
	rep.OK = rep.Requests
	b.clock = b.clock.Add(1150 * time.Millisecond)
	v.Reps = append(v.Reps, rep)
	return rep.Rep
}

// reading times the yardstick: ten trials of 50 ms at a pace of its own, and ten of
// the kernel's part, 47 ms at the same pace with noise of its own.
func (b *builder) reading(phase string) {
	pace := math.Exp(0.01 * b.rng.NormFloat64())
	r := &results.Reading{At: b.clock, Phase: phase}
	for range 10 {
		r.Trials = append(r.Trials, 0.050/pace*math.Exp(0.007*b.rng.NormFloat64()))
	}
	for range r.Trials {
		r.Kernel = append(r.Kernel, 0.047/pace*math.Exp(0.007*b.kernel.NormFloat64()))
	}
	b.run.Yardstick.Readings = append(b.run.Yardstick.Readings, r)
	b.clock = b.clock.Add(time.Second)
}

// Machine makes r look as if it ran on a machine speed times as fast: rates times
// speed, times and CPU per request divided by it, the yardstick's trials too. Counts
// do not depend on speed and stay.
func Machine(r *results.Run, speed float64) {
	for _, v := range r.Variants {
		scale(v, speed)
	}
	if r.Yardstick != nil {
		for _, rd := range r.Yardstick.Readings {
			for i := range rd.Trials {
				rd.Trials[i] /= speed
			}
		}
	}
	Kernel(r, speed)
}

// Kernel makes r's kernel part of the yardstick speed times as fast, and nothing else:
// a kernel that changed alone (Machine calls it with the same speed as the rest).
func Kernel(r *results.Run, speed float64) {
	if r.Yardstick == nil {
		return
	}
	for _, rd := range r.Yardstick.Readings {
		for i := range rd.Kernel {
			rd.Kernel[i] /= speed
		}
	}
}

// Slow makes the variant key factor times as fast (0.9: 10% slower), leaving the
// yardstick as it was: what a slower ORM does.
func Slow(r *results.Run, key string, factor float64) {
	v := r.Variant(key)
	if v == nil {
		panic("comparetest: no variant " + key)
	}
	scale(v, factor)
}

func scale(v *results.Variant, speed float64) {
	for _, rep := range v.Reps {
		rep.QPS *= speed
		rep.Requests = int64(float64(rep.Requests) * speed)
		rep.OK = rep.Requests
		for _, x := range []*float64{&rep.P50, &rep.P90, &rep.P99, &rep.P999, &rep.Max, &rep.AppCPU, &rep.DBCPU, &rep.GenCPU} {
			*x /= speed
		}
	}
}

// AddCommands gives the variant key n more queries per request.
func AddCommands(r *results.Run, key string, n float64) {
	v := r.Variant(key)
	if v == nil || v.Roundtrips == nil {
		panic("comparetest: no database variant " + key)
	}
	v.Roundtrips.Wire["Query"] += n
	v.Roundtrips.Log["Query"] += n
}

// Old makes r look like a run saved before the yardstick and pairing: no yardstick, no
// comparisons, no counts per request.
func Old(r *results.Run) {
	r.Yardstick, r.Comparisons, r.Settings.Pairing = nil, nil, nil
	for _, v := range r.Variants {
		for _, rep := range v.Reps {
			rep.Counts = nil
		}
		if v.Roundtrips != nil {
			v.Roundtrips.BytesToDB, v.Roundtrips.BytesFromDB = 0, 0
		}
	}
}
