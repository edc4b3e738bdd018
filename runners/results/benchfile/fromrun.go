package benchfile

import (
	"bytes"
	"sort"

	"dbbench/runners/results"
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
		if err := bw.Write(Repetition{Name: l.v.Name, Iters: int(l.rep.Requests), Values: values(l.v.Values(l.rep))}); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

func values(vs []results.UnitValue) []Value {
	out := make([]Value, len(vs))
	for i, v := range vs {
		out[i] = Value{Value: v.Value, Unit: v.Unit}
	}
	return out
}
