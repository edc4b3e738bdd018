package report

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"dbbench/runners/questions"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// The pooler matrix: each variant measured direct against itself through each pooler
// the run started (dbbench run --db postgres,pgbouncer,pgbouncer-118,pgbouncer-off),
// with what a team asks before putting one in: does it work, and if not, what error;
// the messages at the client, the pooler and the server; and what it keeps of the
// throughput direct.

// poolerDBs are the run's dbs reached through a pooler, in the run's order.
func (d *data) poolerDBs() []string {
	var out []string
	for _, v := range d.run.Variants {
		if d.run.Environment[results.EnvKey("pooler", v.Database)] != "" && !slices.Contains(out, v.Database) {
			out = append(out, v.Database)
		}
	}
	return out
}

// poolerGrid is the matrix; nil for a run without a pooler. Rows are the variants
// measured direct on the run's first server.
func (d *data) poolerGrid(fs []finding) *grid {
	poolers := d.poolerDBs()
	if len(poolers) == 0 {
		return nil
	}
	first := d.run.FirstDatabase()
	g := &grid{ID: "t-pooler", Caption: "Each variant through each pooler against itself direct: works or the error it gave; QPS ratio [95% interval]; messages per request at the client, the pooler and the server",
		Head: []string{"variant", "direct"}}
	for _, p := range poolers {
		name := dbName(&results.Variant{Database: p})
		g.Head = append(g.Head, name)
		g.Notes = append(g.Notes, name+": "+d.run.Environment[results.EnvKey("pooler", p)]+".")
	}
	selves := map[string]finding{}
	for _, f := range byQuestion(fs, questions.DB) {
		selves[f.Other.Key] = f
	}
	for _, direct := range d.run.Variants {
		if direct.Database != first || !direct.DB {
			continue
		}
		row := []cell{textCell(withoutDB(direct)), textCell(d.poolerCellLines(direct, nil)...)}
		for _, p := range poolers {
			row = append(row, textCell(d.poolerCell(direct, p, selves)...))
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}

// poolerCell is direct's twin through pooler p: "fails: the error", or its ratio to
// direct and its counts.
func (d *data) poolerCell(direct *results.Variant, p string, selves map[string]finding) []string {
	key := dbKey.ReplaceAllString(direct.Key, "") + "/db=" + p
	v := d.run.Variant(key)
	switch {
	case v == nil:
		return []string{"not measured"}
	case v.InvalidReason != "":
		return []string{"fails: " + userError(v.InvalidReason)}
	}
	var qps *estimate
	if f, ok := selves[key]; ok {
		qps = &f.QPS
	}
	return d.poolerCellLines(v, qps)
}

// poolerCellLines are a valid variant's figures: its QPS against direct (nil for direct
// itself), the client's messages, the pooler's Parses and Binds to the server, the
// server's statements (pg_stat_statements), and the pooler's CPU per request.
func (d *data) poolerCellLines(v *results.Variant, qps *estimate) []string {
	if v.InvalidReason != "" {
		return []string{"fails: " + userError(v.InvalidReason)}
	}
	var out []string
	if qps != nil {
		out = append(out, "QPS "+ratioCI(*qps))
	}
	rt := v.Roundtrips
	if rt == nil {
		return append(out, "not captured")
	}
	out = append(out, "client: "+commandList(rt))
	if rt.Pooler != nil {
		if _, ok := rt.Pooler["server_parse"]; ok {
			out = append(out, fmt.Sprintf("pooler: Parse %s, Bind %s to the server", units.Number(rt.Pooler["server_parse"]), units.Number(rt.Pooler["bind"])))
		} else {
			out = append(out, "pooler: counts no Parse or Bind (before 1.21)")
		}
	}
	if rt.Statements != nil {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(rt.Statements)) {
			parts = append(parts, fmt.Sprintf("%s %s", k, units.Number(rt.Statements[k])))
		}
		out = append(out, "server: "+strings.Join(parts, ", "))
	}
	if s, ok := d.summary(v, units.PoolerCPU); ok {
		out = append(out, fmt.Sprintf("pooler CPU %s µs", scaled(s, 1e6, 1, "")))
	}
	return out
}

// sqlError finds PostgreSQL's error as drivers print it: pgx's "ERROR: … (SQLSTATE
// 42P05)", PDO's "SQLSTATE[42P05]: …".
var sqlError = regexp.MustCompile(`ERROR: [^\n]*?\(SQLSTATE \w+\)|SQLSTATE\[\w+\][^\n;]*`)

// userError is the error an application's user would see in an invalid variant's
// reason: the database's, where it names one, else the reason's start.
func userError(reason string) string {
	if m := sqlError.FindString(reason); m != "" {
		return strings.ReplaceAll(strings.TrimSpace(m), `\"`, `"`)
	}
	if len(reason) > 160 {
		return reason[:160] + "…"
	}
	return reason
}
