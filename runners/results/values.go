package results

import (
	"math"
	"slices"
	"sort"

	"dbbench/runners/saturation"
	"dbbench/runners/units"
)

// UnitValue is one figure of a repetition in a bench.txt unit.
type UnitValue struct {
	Unit  string
	Value float64
}

// Values are rep's figures in bench.txt units (package units): throughput, latency
// percentiles and CPU per request in seconds, commands per request (exact, from the
// variant's capture), errors per request, and its Counts that measure something
// (Counted). A figure not measured (CPU of a server on another host) is left out.
func (v *Variant) Values(rep *Repetition) []UnitValue {
	out := []UnitValue{
		{units.QPS, rep.QPS}, {units.P50, rep.P50}, {units.P90, rep.P90},
		{units.P99, rep.P99}, {units.P999, rep.P999},
	}
	if rep.AppCPU >= 0 {
		out = append(out, UnitValue{units.AppCPU, rep.AppCPU})
	}
	if rep.DBCPU >= 0 {
		out = append(out, UnitValue{units.DBCPU, rep.DBCPU})
	}
	out = append(out, UnitValue{units.GenCPU, rep.GenCPU})
	switch {
	case v.Roundtrips != nil:
		commands, trips := v.Roundtrips.Commands()
		out = append(out, UnitValue{units.Commands, commands}, UnitValue{units.Roundtrips, trips})
		for _, b := range v.Roundtrips.byteUnits() {
			out = append(out, b)
		}
	case !v.DB:
		out = append(out, UnitValue{units.Commands, 0}, UnitValue{units.Roundtrips, 0})
	}
	if rep.Requests > 0 {
		var errs int64
		for _, n := range rep.Errors {
			errs += n
		}
		out = append(out, UnitValue{units.Errors, float64(errs) / float64(rep.Requests)})
	}
	keys := make([]string, 0, len(rep.Counts))
	for k := range rep.Counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v.Counted(k) {
			out = append(out, UnitValue{k, rep.Counts[k]})
		}
	}
	return out
}

// Counted says whether a count of v's repetitions measures what its unit names. Not,
// and kept in old results.json files only:
//   - db syscalls: mariadbd reads and writes its sockets with recv(2) and send(2), which
//     /proc/PID/io does not count: 0 for every variant (units.Syscalls);
//   - a PHP target's app syscalls: PHP's streams (PDO's mysqlnd, the worker's sockets)
//     use recv and send too; php-fpm's count is only nginx's and FastCGI's read and
//     write calls, 10.0 for hello and Eloquent alike, a worker's 0;
//   - req-peak-B: the allocator's real peak in 2 MiB chunks, 2 MiB for nearly every
//     layer (units.ReqPeak; the worker's req-peak-alloc-B is the figure).
func (v *Variant) Counted(unit string) bool {
	switch unit {
	case units.Syscalls("db"), units.ReqPeak:
		return false
	case units.Syscalls("app"):
		return v.Lang != "php"
	}
	return true
}

// DropUncounted removes from rep the counts Counted refuses, so that results.json
// holds only what measures something.
func (v *Variant) DropUncounted(rep *Repetition) {
	for k := range rep.Counts {
		if !v.Counted(k) {
			delete(rep.Counts, k)
		}
	}
}

// Value is rep's figure in unit; ok is false when it has none.
func (v *Variant) Value(rep *Repetition, unit string) (value float64, ok bool) {
	i := slices.IndexFunc(v.Values(rep), func(u UnitValue) bool { return u.Unit == unit })
	if i < 0 {
		return 0, false
	}
	return v.Values(rep)[i].Value, true
}

// Rep returns v's repetition numbered n, nil if there is none.
func (v *Variant) Rep(n int) *Repetition {
	for _, r := range v.Reps {
		if r.Rep == n {
			return r
		}
	}
	return nil
}

// Variant returns the variant of the run with key, nil if there is none.
func (r *Run) Variant(key string) *Variant {
	for _, v := range r.Variants {
		if v.Key == key {
			return v
		}
	}
	return nil
}

// Ratios are a comparison's per-pair ratios in unit, Other over Base: for each pair the
// geometric mean of Other's values over that of Base's. A pair a side of which lacks the
// unit, or has a value that is not positive, is left out.
func (r *Run) Ratios(c *Comparison, unit string) []float64 {
	base, other := r.Variant(c.Base), r.Variant(c.Other)
	if base == nil || other == nil {
		return nil
	}
	var out []float64
	for _, p := range c.Pairs {
		b, okB := geomean(base, p.Base, unit)
		o, okO := geomean(other, p.Other, unit)
		if okB && okO {
			out = append(out, o/b)
		}
	}
	return out
}

// Differences are a comparison's per-pair differences in unit, Other less Base, each
// side the geometric mean of its values in the pair (as Ratios takes them): what a
// figure gained, such as a list's app CPU for 90 more rows.
func (r *Run) Differences(c *Comparison, unit string) []float64 {
	base, other := r.Variant(c.Base), r.Variant(c.Other)
	if base == nil || other == nil {
		return nil
	}
	var out []float64
	for _, p := range c.Pairs {
		b, okB := geomean(base, p.Base, unit)
		o, okO := geomean(other, p.Other, unit)
		if okB && okO {
			out = append(out, o-b)
		}
	}
	return out
}

// geomean is the geometric mean of v's values in unit over the repetitions reps.
func geomean(v *Variant, reps []int, unit string) (float64, bool) {
	if len(reps) == 0 {
		return 0, false
	}
	var logSum float64
	for _, n := range reps {
		rep := v.Rep(n)
		if rep == nil {
			return 0, false
		}
		x, ok := v.Value(rep, unit)
		if !ok || x <= 0 {
			return 0, false
		}
		logSum += math.Log(x)
	}
	return math.Exp(logSum / float64(len(reps))), true
}

// Saturation judges v's slices (package saturation) and combines the verdicts: whether
// its latency was service time or time in a queue, and why.
func (v *Variant) Saturation() saturation.Verdict {
	var vs []saturation.Verdict
	for _, rep := range v.Reps {
		if rep.Saturation != nil {
			vs = append(vs, saturation.Judge(*rep.Saturation))
		}
	}
	return saturation.Combine(vs)
}
