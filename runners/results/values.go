package results

import (
	"slices"
	"sort"

	"dbbench/runners/saturation"
	"dbbench/runners/stats"
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
		out = append(out, v.Roundtrips.byteUnits()...)
		out = append(out, v.Roundtrips.poolerUnits()...)
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
//     write calls, the same for every layer, a worker's 0 (runners/measure/run/README.md,
//     "Counts that do not depend on the machine's speed", has the figures);
//   - req-peak-B: the allocator's real peak in whole 2 MiB chunks, the same for nearly
//     every layer (units.ReqPeak, php/README.md, "Memory per request", has the figures;
//     the worker's req-peak-alloc-B is the figure).
func (v *Variant) Counted(unit string) bool {
	switch unit {
	case units.Syscalls("db"), units.ReqPeak:
		return false
	case units.Syscalls("app"):
		return v.Lang != "php"
	case units.DBDials, units.DBPrepares: // a variant without a database: the others' or none
		return v.DB
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

// SaturationSummaries are the load summaries of v's repetitions that have one, in
// order, for saturation.JudgeAll: the judging is that package's, not the schema's.
func (v *Variant) SaturationSummaries() []saturation.Summary {
	var out []saturation.Summary
	for _, rep := range v.Reps {
		if rep.Saturation != nil {
			out = append(out, *rep.Saturation)
		}
	}
	return out
}

// ChurnLimit is the server's new connections per request above which a variant that
// keeps its connections is said to churn: a kept pool dials only as it grows, a
// handful in a slice of thousands of requests.
const ChurnLimit = 0.01

// Churns says whether v keeps its connections (any conn but per-request) yet the
// server counted more than ChurnLimit new connections per request, the median of its
// slices (units.DBDials): a pool that closes idle connections the next requests dial
// again. dials is that median; ok is false where the server's count was not read.
func (v *Variant) Churns() (dials float64, churns, ok bool) {
	var xs []float64
	for _, rep := range v.Reps {
		if x, has := rep.Counts[units.DBDials]; has {
			xs = append(xs, x)
		}
	}
	if len(xs) == 0 || !v.DB {
		return 0, false, false
	}
	dials = stats.Median(xs)
	return dials, v.Conn != "per-request" && dials > ChurnLimit, true
}
