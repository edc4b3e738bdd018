package benchfile

import (
	"bytes"
	"sort"

	"dbbench/runners/results"
	"dbbench/runners/units"
)

// FromRun renders a run in Go benchmark format: the environment as configuration
// lines, then one line per repetition in the order they were measured.
func FromRun(run *results.Run) ([]byte, error) {
	var buf bytes.Buffer
	bw, err := NewWriter(&buf, Configs(run.Environment))
	if err != nil {
		return nil, err
	}
	type line struct {
		v   *results.Variant
		rep *results.Repetition
	}
	var lines []line
	for _, v := range run.Variants {
		if !v.Valid {
			continue // an invalid variant's figures are never reported as if fine
		}
		for _, rep := range v.Reps {
			lines = append(lines, line{v, rep})
		}
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].rep.Started.Before(lines[j].rep.Started) })
	for _, l := range lines {
		if err := bw.Write(Repetition{Name: l.v.Name, Iters: int(l.rep.Requests), Values: values(l.v, l.rep)}); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// values are a repetition's figures in benchfmt units: per-op costs and percentiles in
// seconds, throughput in req/s.
func values(v *results.Variant, r *results.Repetition) []Value {
	out := []Value{
		{Value: r.QPS, Unit: units.QPS},
		{Value: r.P50, Unit: units.P50},
		{Value: r.P90, Unit: units.P90},
		{Value: r.P99, Unit: units.P99},
		{Value: r.P999, Unit: units.P999},
	}
	if r.AppCPU >= 0 {
		out = append(out, Value{Value: r.AppCPU, Unit: units.AppCPU})
	}
	if r.DBCPU >= 0 {
		out = append(out, Value{Value: r.DBCPU, Unit: units.DBCPU})
	}
	out = append(out, Value{Value: r.GenCPU, Unit: units.GenCPU})
	if v.Roundtrips != nil {
		commands, trips := v.Roundtrips.Commands()
		out = append(out, Value{Value: commands, Unit: units.Commands},
			Value{Value: trips, Unit: units.Roundtrips})
	} else if !v.DB {
		out = append(out, Value{Value: 0, Unit: units.Commands},
			Value{Value: 0, Unit: units.Roundtrips})
	}
	var errs int64
	for _, n := range r.Errors {
		errs += n
	}
	if r.Requests > 0 {
		out = append(out, Value{Value: float64(errs) / float64(r.Requests), Unit: units.Errors})
	}
	return out
}
