// Package sweep runs the pool-size and network-distance sweeps: each is a few whole
// runs (runners/run) over a list of variants it builds, followed by an analysis of the
// runs' results.json files and a report of its own.
package sweep

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"dbbench/runners/matrix"
	"dbbench/runners/results"
	"dbbench/runners/run"
)

// Family is a variant's key without its pool: the curve a pool sweep draws.
func Family(v matrix.Variant) string {
	v.Pool = 0
	k := v.Key()
	return strings.TrimSuffix(k, "/pool=0")
}

// ExpandPools lists each base variant (its Pool ignored; duplicates dropped) at every
// pool of its lang's list that can matter at concurrency c: the pools up to c and the
// first one at or above it. With at most c requests in flight a larger pool holds no
// more busy connections, so it would only repeat that last point.
func ExpandPools(base []matrix.Variant, pools map[string][]int, c int) ([]matrix.Variant, error) {
	if c < 1 {
		return nil, fmt.Errorf("concurrency %d: want at least 1", c)
	}
	seen := map[string]bool{}
	var out []matrix.Variant
	for _, v := range base {
		if seen[Family(v)] {
			continue
		}
		seen[Family(v)] = true
		list := pools[v.Lang]
		if len(list) == 0 {
			return nil, fmt.Errorf("no pool sizes for lang %s", v.Lang)
		}
		list = slices.Sorted(slices.Values(list))
		for _, p := range slices.Compact(list) {
			v.Pool = p
			out = append(out, v)
			if p >= c {
				break
			}
		}
	}
	return out, nil
}

// PoolOptions configure a pool sweep.
type PoolOptions struct {
	// Run holds what every run of the sweep shares: Root, BinDir, Matrix, Preset (for
	// defaults), DB, Warmup, Duration, Reps, Seed, KeepAlive, Log. List, Connections,
	// Rate and Out are set by the sweep.
	Run         run.Options
	Variants    []matrix.Variant // pool ignored
	Pools       map[string][]int // lang → pool sizes; nil: the matrix's pool_sweep lists
	Concurrency []int
	Out         string
}

// LevelDir is where the run at concurrency c goes.
func LevelDir(out string, c int) string { return filepath.Join(out, fmt.Sprintf("c%d", c)) }

// Pool runs the sweep: one closed-loop run per concurrency level over every variant at
// every pool, repetitions interleaved within the level. Each run provisions its own
// database (about a second), so levels do not share server state. It stops at the
// first run that fails; what was measured stays in Out.
func Pool(ctx context.Context, o PoolOptions) error {
	pools := o.poolLists()
	for _, c := range o.Concurrency {
		vs, err := ExpandPools(o.Variants, pools, c)
		if err != nil {
			return err
		}
		ro := o.Run
		ro.List, ro.Connections, ro.Rate, ro.Out = vs, c, 0, LevelDir(o.Out, c)
		fmt.Fprintf(ro.Log, "pool sweep: concurrency %d, %d variant × pool points, into %s\n", c, len(vs), ro.Out)
		if _, err := run.Run(ctx, ro); err != nil {
			return fmt.Errorf("pool sweep at concurrency %d: %w", c, err)
		}
	}
	return nil
}

// Level is one concurrency level's run, read back.
type Level struct {
	Concurrency int
	Run         *results.Run
	Curves      []Curve
}

// Curve is one variant family at one concurrency: a point per pool, by pool.
type Curve struct {
	Family string
	Lang   string
	Points []Point
}

// LoadPool reads every level of a pool sweep in dir (c*/results.json), by concurrency.
func LoadPool(dir string) ([]Level, error) {
	files, err := filepath.Glob(filepath.Join(dir, "c*", "results.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s holds no pool sweep (no c*/results.json)", dir)
	}
	var out []Level
	for _, f := range files {
		r, err := results.Read(f)
		if err != nil {
			return nil, err
		}
		out = append(out, Level{Concurrency: r.Settings.Connections, Run: r, Curves: curves(r)})
	}
	slices.SortFunc(out, func(a, b Level) int { return a.Concurrency - b.Concurrency })
	return out, nil
}

// curves groups a run's variants by family, in the run's order, points by pool.
func curves(r *results.Run) []Curve {
	var out []Curve
	idx := map[string]int{}
	for _, v := range r.Variants {
		fam := Family(matrix.Variant{Lang: v.Lang, Server: v.Server, Layer: v.Layer, Stmt: v.Stmt, Conn: v.Conn})
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
	p := Point{Pool: v.Pool, Saturation: v.Saturation()}
	if !v.Valid {
		p.Invalid = v.InvalidReason
	}
	for _, r := range v.Reps {
		p.QPS = append(p.QPS, r.QPS)
		p.P99 = append(p.P99, r.P99)
		if r.PoolCounted {
			p.PoolWaits = append(p.PoolWaits, float64(r.PoolWaits))
		}
		p.ThreadsRunning += r.ThreadsRunningMean / float64(len(v.Reps))
		p.ThreadsMax = max(p.ThreadsMax, r.ThreadsRunningMax)
		for _, n := range r.Errors {
			p.Errors += n
		}
	}
	return p
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// Estimate is how long a sweep of points (variant × run) in runs takes, from what
// the first sweeps on the 2-core development machine took: about 0.35 s per repetition
// to start and stop a target beyond its warm-up and measured time, about 1.5 s per
// point to verify it and count its round trips, about 2 s per run to provision.
func Estimate(points, runs, reps int, warmup, duration time.Duration) time.Duration {
	perRep := warmup + duration + 350*time.Millisecond
	return time.Duration(points)*(time.Duration(reps)*perRep+1500*time.Millisecond) + time.Duration(runs)*2*time.Second
}

// PoolPoints counts the points of a pool sweep, for Estimate.
func PoolPoints(o PoolOptions) (int, error) {
	n := 0
	for _, c := range o.Concurrency {
		vs, err := ExpandPools(o.Variants, o.poolLists(), c)
		if err != nil {
			return 0, err
		}
		n += len(vs)
	}
	return n, nil
}

// poolLists is Pools, or the matrix's pool_sweep lists when Pools is nil.
func (o PoolOptions) poolLists() map[string][]int {
	if o.Pools != nil {
		return o.Pools
	}
	pools := map[string][]int{}
	for _, ln := range o.Run.Matrix.LangNames() {
		pools[ln] = o.Run.Matrix.Langs[ln].PoolSweep
	}
	return pools
}
