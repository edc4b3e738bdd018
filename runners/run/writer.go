package run

import (
	"bytes"
	"sort"

	"dbbench/runners/benchfile"
	"dbbench/runners/results"
)

// writer rewrites results.json and bench.txt after every step; each file is replaced
// atomically, so an interruption at any moment leaves whole files.
type writer struct {
	dir string
	run *results.Run
}

func (w *writer) flush() error {
	if err := results.WriteJSON(w.dir+"/results.json", w.run); err != nil {
		return err
	}
	b, err := BenchText(w.run)
	if err != nil {
		return err
	}
	return results.WriteFile(w.dir+"/bench.txt", b)
}

// BenchText renders a run in Go benchmark format: the environment as configuration
// lines, then one line per repetition in the order they were measured.
func BenchText(run *results.Run) ([]byte, error) {
	var buf bytes.Buffer
	bw, err := benchfile.NewWriter(&buf, benchfile.Configs(run.Environment))
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
		if err := bw.Write(benchfile.Repetition{Name: l.v.Name, Iters: int(l.rep.Requests), Values: values(l.v, l.rep)}); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// values are a repetition's figures in benchfmt units: per-op costs and percentiles in
// seconds, throughput in req/s.
func values(v *results.Variant, r *results.Repetition) []benchfile.Value {
	out := []benchfile.Value{
		{Value: r.QPS, Unit: "req/s"},
		{Value: r.P50, Unit: "p50-sec/op"},
		{Value: r.P90, Unit: "p90-sec/op"},
		{Value: r.P99, Unit: "p99-sec/op"},
		{Value: r.P999, Unit: "p99.9-sec/op"},
	}
	if r.AppCPU >= 0 {
		out = append(out, benchfile.Value{Value: r.AppCPU, Unit: "app-cpu-sec/op"})
	}
	if r.DBCPU >= 0 {
		out = append(out, benchfile.Value{Value: r.DBCPU, Unit: "db-cpu-sec/op"})
	}
	out = append(out, benchfile.Value{Value: r.GenCPU, Unit: "gen-cpu-sec/op"})
	if v.Roundtrips != nil {
		commands, trips := Commands(v.Roundtrips)
		out = append(out, benchfile.Value{Value: commands, Unit: "commands/op"},
			benchfile.Value{Value: trips, Unit: "roundtrips/op"})
	} else if v.Layer == "hello" {
		out = append(out, benchfile.Value{Value: 0, Unit: "commands/op"},
			benchfile.Value{Value: 0, Unit: "roundtrips/op"})
	}
	var errs int64
	for _, n := range r.Errors {
		errs += n
	}
	if r.Requests > 0 {
		out = append(out, benchfile.Value{Value: float64(errs) / float64(r.Requests), Unit: "errors/op"})
	}
	return out
}

// oneWay are the commands the server never answers: they cost a packet, not a wait.
var oneWay = map[string]bool{"Close stmt": true, "Quit": true, "Long Data": true}

// Commands sums a capture per request: every client command plus each new connection,
// and of those the round trips, the ones the client waits for (a new connection counts
// as one, though its handshake takes more). Wire counts are used when present, since
// the general log misses COM_PING.
func Commands(rt *results.Roundtrips) (commands, roundtrips float64) {
	src := rt.Wire
	if src == nil {
		src = rt.Log
	}
	for k, n := range src {
		commands += n
		if !oneWay[k] {
			roundtrips += n
		}
	}
	return commands, roundtrips
}
