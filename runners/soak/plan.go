// Package soak serves the variants most at risk of leaking at production load for a long
// time, all at once, samples every role's resources on a fixed interval, and judges each
// series with a robust trend: grows or flat. It exists because some failures only show
// over time (statements never closed until max_prepared_stmt_count, descriptors or
// connections that leak, a heap that keeps growing), and every other measurement of the
// suite is seconds long.
package soak

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/provider"
	"dbbench/runners/results"
)

// Defaults of the command line.
const (
	DefaultDuration = 60 * time.Minute
	// DefaultRateFraction: at 0.8, clean soaks on a 2-core VM fell short of their rate
	// (below MinAchieved) with nothing else running: a capacity measured for 20 s moved
	// from soak to soak, and the VM's speed wanders within one (README.md, "Measured").
	DefaultRateFraction   = 0.7
	DefaultCapacityTime   = 20 * time.Second
	DefaultCapacityWarmup = 5 * time.Second
	// DefaultPools are small, so that twelve pools at once stay far below the database's
	// max_connections: the soak looks for leaks, not for the pool's limits.
	DefaultPools = "go=16,php=4"
)

// Options configure a soak.
type Options struct {
	Root     string // the repository
	BinDir   string // where gotarget is; "" means Root/bin (the planted-leak test points elsewhere)
	Matrix   *matrix.Matrix
	Variants []matrix.Variant
	DB       provider.Options
	Duration time.Duration // of the soak proper, after the capacity phase
	Interval time.Duration // between samples; also each load window's length; 0 means DefaultInterval(Duration)
	Warmup   time.Duration // excluded from the verdicts; < 0 means DefaultWarmup(Duration)
	// The capacity phase: every target under closed-loop load at once for CapacityTime,
	// after CapacityWarmup; each variant is then served at RateFraction of what it
	// achieved.
	CapacityWarmup time.Duration
	CapacityTime   time.Duration
	RateFraction   float64
	// Connections per generator, closed and open loop; 0 means 2 × the variant's pool,
	// enough to keep every pooled connection busy while measuring capacity.
	Connections int
	Seed        uint64
	Out         string // the soak's directory; created
	Log         io.Writer
	// Topology is where the roles run (runners/measure/topology): "" or loopback, or netns.
	Topology results.TopologyKind
}

// DefaultInterval is a thirtieth of the duration, from 2 s to 10 s: an hour is sampled
// every 10 s, and a 90-s soak every 3 s, so that the half of its judged minute that
// tells growth from settling still holds the 10 samples an interval of the slope needs.
func DefaultInterval(d time.Duration) time.Duration {
	return min(10*time.Second, max(2*time.Second, (d/30).Round(time.Second)))
}

// Defaults fills the options left to their defaults (Interval 0, Warmup < 0) from
// Duration; Check and Run see the result.
func (o *Options) Defaults() {
	if o.Interval == 0 {
		o.Interval = DefaultInterval(o.Duration)
	}
	if o.Warmup < 0 {
		o.Warmup = DefaultWarmup(o.Duration)
	}
}

// DefaultWarmup is a tenth of the duration, raised to one minute when that leaves at
// least two thirds of the soak to judge.
func DefaultWarmup(d time.Duration) time.Duration {
	w := d / 10
	if w < time.Minute {
		w = min(time.Minute, d/3)
	}
	return w
}

// connections is what a variant's generators use.
func (o *Options) connections(v matrix.Variant) int {
	if o.Connections > 0 {
		return o.Connections
	}
	return 2 * v.Pool
}

// Check validates the options before anything starts.
func (o *Options) Check() error {
	switch {
	case o.Duration <= 0:
		return fmt.Errorf("--duration must be positive, got %v", o.Duration)
	case o.Interval <= 0:
		return fmt.Errorf("--interval must be positive, got %v", o.Interval)
	case o.Interval > o.Duration:
		return fmt.Errorf("--interval %v is longer than --duration %v: no sample would be taken", o.Interval, o.Duration)
	case o.Warmup >= o.Duration:
		return fmt.Errorf("--warmup %v leaves nothing of --duration %v to judge", o.Warmup, o.Duration)
	case o.RateFraction <= 0 || o.RateFraction > 1:
		return fmt.Errorf("--rate-fraction must be in (0, 1], got %g", o.RateFraction)
	case o.CapacityTime <= 0:
		return fmt.Errorf("--capacity-time must be positive, got %v", o.CapacityTime)
	case o.CapacityWarmup < 0:
		return fmt.Errorf("--capacity-warmup must not be negative, got %v", o.CapacityWarmup)
	case o.Connections < 0:
		return fmt.Errorf("--connections must not be negative, got %d", o.Connections)
	case len(o.Variants) == 0:
		return fmt.Errorf("no variant to soak")
	}
	return nil
}

// DefaultVariants are the variants most at risk on database db (a db of the matrix),
// drawn from the matrix: for each language, each of its servers and each layer that
// reads db, the mode that keeps statements on the server (prepare, or the layer's
// reference mode on db's protocol: pgx's cache_statement; else the first mode the
// matrix allows) with persistent connections; plus, per language on its first server,
// its baseline on db's protocol with that mode and a new connection per request. pools
// gives each language's pool.
func DefaultVariants(m *matrix.Matrix, pools map[string]int, db string) ([]matrix.Variant, error) {
	proto := m.ProtocolOf(db)
	var out []matrix.Variant
	for _, ln := range m.LangNames() {
		l := m.Langs[ln]
		pool, ok := pools[ln]
		if !ok {
			return nil, fmt.Errorf("no pool for lang %s (give it in --pools)", ln)
		}
		for _, server := range l.ServerNames() {
			for _, name := range l.LayerNames() {
				layer := l.Layers[name]
				if !layer.DB || !slices.Contains(layer.Conn, "persistent") || !m.Reads(layer, db) {
					continue
				}
				for _, stmt := range riskiest(layer, proto) {
					v := m.OnDB(matrix.Variant{Lang: ln, Server: server, Layer: name, Stmt: stmt, Conn: "persistent", Pool: pool}, db)
					if m.Check(v) == nil {
						out = append(out, v)
						break
					}
				}
			}
		}
		base := l.Layers[l.BaselineOn(proto)]
		if base == nil {
			continue
		}
		for _, stmt := range riskiest(base, proto) {
			v := m.OnDB(matrix.Variant{Lang: ln, Server: l.DefaultServer(), Layer: base.Name, Stmt: stmt, Conn: "per-request", Pool: pool}, db)
			if m.Check(v) == nil {
				out = append(out, v)
				break
			}
		}
	}
	return out, nil
}

// riskiest lists a layer's modes on a protocol, those that keep statements on the
// server first: prepare, then its reference mode (pgx's cache_statement).
func riskiest(l *matrix.Layer, proto string) []string {
	stmts := l.StmtsOn(proto)
	var first []string
	for _, s := range []string{"prepare", l.RefOn(proto)} {
		if s != "" && slices.Contains(stmts, s) && !slices.Contains(first, s) {
			first = append(first, s)
		}
	}
	return append(first, stmts...)
}

// ParsePools reads "go=16,php=4" (one pool per language; ";" separates as well) into
// lang → pool, on top of the defaults for languages not named. Every lang must be one
// the matrix knows.
func ParsePools(m *matrix.Matrix, s string) (map[string]int, error) {
	out := map[string]int{}
	for _, ln := range m.LangNames() {
		out[ln] = 8 // a language the defaults do not name
	}
	for _, part := range strings.FieldsFunc(DefaultPools+","+s, func(r rune) bool { return r == ',' || r == ';' }) {
		lang, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, fmt.Errorf("--pools: %q: want lang=N, like %s", part, DefaultPools)
		}
		if _, known := m.Langs[lang]; !known {
			return nil, fmt.Errorf("--pools: unknown lang %q (want one of %s)", lang, strings.Join(m.LangNames(), ", "))
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--pools: %s=%s: the pool must be a positive integer", lang, val)
		}
		out[lang] = n
	}
	return out, nil
}

// ParseVariants reads a comma-separated list of variant keys, on database db (a db of
// the matrix, the soak's --db). A key may leave out its pool (it then gets its
// language's pool), its server (the language's first) and its db (then db); one that
// names another db than db is refused, as the soak starts one. Every variant must be
// one the matrix knows; each may be given once.
func ParseVariants(m *matrix.Matrix, list string, pools map[string]int, db string) ([]matrix.Variant, error) {
	out, err := m.ResolveListOn(list, func(lang string) int { return max(pools[lang], 1) }, db)
	if err != nil {
		return nil, err // the caller names the flag
	}
	for _, v := range out {
		if got := m.DBName(v); got != db {
			return nil, fmt.Errorf("%s names db=%s, but the soak measures --db %s", v.Key(), got, db)
		}
	}
	for i, v := range out {
		if slices.Contains(out[:i], v) {
			return nil, fmt.Errorf("%s is given twice", v.Key())
		}
	}
	return out, nil
}
