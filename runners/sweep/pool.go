// Package sweep runs the pool-size and network-distance sweeps: each is one or a few
// whole runs (runners/measure/run) over a list of variants it builds, followed by an analysis of
// the runs' results.json files and a report of its own.
package sweep

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/run"
	"dbbench/runners/results"
	"dbbench/runners/saturation"
)

// familyOf is v's family (matrix.Variant.Family) on the run's one server and op.
func familyOf(v *results.Variant) string {
	return matrix.Variant{Lang: v.Lang, Server: v.Server, Layer: v.Layer, Stmt: v.Stmt, Conn: v.Conn}.Family()
}

func saturationOf(rep *results.Repetition) saturation.Verdict {
	return saturation.Judge(*rep.Saturation)
}

// ExpandPools lists each base variant (its Pool ignored; duplicates dropped) at every
// pool of its lang's list.
func ExpandPools(base []matrix.Variant, pools map[string][]int) ([]matrix.Variant, error) {
	seen := map[string]bool{}
	var out []matrix.Variant
	for _, v := range base {
		if seen[v.Family()] {
			continue
		}
		seen[v.Family()] = true
		list := pools[v.Lang]
		if len(list) == 0 {
			return nil, fmt.Errorf("no pool sizes for lang %s", v.Lang)
		}
		for _, p := range slices.Compact(slices.Sorted(slices.Values(list))) {
			v.Pool = p
			out = append(out, v)
		}
	}
	return out, nil
}

// PoolOptions configure a pool sweep.
type PoolOptions struct {
	// Run holds what the sweep's run shares with any run: Root, BinDir, Matrix, Preset
	// (for defaults), DB, Warmup, Duration, Reps, Seed, KeepAlive, Log. List, Plan and
	// Out are set by the sweep.
	Run      run.Options
	Variants []matrix.Variant // pool ignored
	Pools    map[string][]int // lang → pool sizes; nil: the matrix's pool_sweep lists
	Plan     PoolPlan
	Out      string
}

// Pool runs the sweep: one run over every variant at every pool, measured by PoolPlan
// (throughput, concurrency series, capacity at the SLO). What was measured stays in Out
// whatever happens.
func Pool(ctx context.Context, o PoolOptions) error {
	vs, err := ExpandPools(o.Variants, o.poolLists())
	if err != nil {
		return err
	}
	ro := o.Run
	ro.List, ro.Out = vs, o.Out
	plan := o.Plan
	ro.Plan = &plan
	fmt.Fprintf(ro.Log, "pool sweep: %d variant × pool points into %s\n", len(vs), ro.Out)
	if _, err := run.Run(ctx, ro); err != nil {
		return fmt.Errorf("pool sweep: %w", err)
	}
	return nil
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

// PoolEstimate is how long a pool sweep takes: per point, its check (about 1.5 s plus
// its round-trip count, each request a few round trips away) and its slices; each slice
// costs its lead-in and about 0.2 s besides.
func PoolEstimate(o PoolOptions) time.Duration {
	pools := o.poolLists()
	points := 0
	for _, v := range o.Variants {
		points += len(pools[v.Lang])
	}
	per := sliceEstimate(o.Run.Duration, cmp.Or(o.Run.LeadIn, run.DefaultLeadIn))
	check := 1500*time.Millisecond + time.Duration(o.Run.RoundtripRequests)*(2*time.Millisecond+4*o.Run.RTT)
	return time.Duration(points)*check + time.Duration(o.Plan.Slices(points))*per
}

// sliceEstimate is how long a slice of a pool sweep takes: its lead-in, its measured
// time and about 0.2 s besides. PoolEstimate and the progress line's first time left
// both use it, so the two agree.
func sliceEstimate(duration, leadIn time.Duration) time.Duration {
	return duration + leadIn + 200*time.Millisecond
}

// Estimate is how long a sweep of points (variant × run) in runs takes, from what the
// first sweeps on the 2-core development machine took: about 0.35 s per repetition
// beyond its warm-up and measured time, about 1.5 s per point to verify it and count
// its round trips, about 2 s per run to provision.
func Estimate(points, runs, reps int, warmup, duration time.Duration) time.Duration {
	perRep := warmup + duration + 350*time.Millisecond
	return time.Duration(points)*(time.Duration(reps)*perRep+1500*time.Millisecond) + time.Duration(runs)*2*time.Second
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// LoadPool reads a pool sweep's run from dir.
func LoadPool(dir string) (*results.Run, error) {
	r, err := results.Read(filepath.Join(dir, "results.json"))
	if err != nil {
		return nil, fmt.Errorf("%s holds no pool sweep: %w", dir, err)
	}
	return r, nil
}
