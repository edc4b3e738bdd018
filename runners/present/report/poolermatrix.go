package report

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"dbbench/runners/judge/questions"
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
		name := d.run.DatabaseTitle(p)
		g.Head = append(g.Head, name)
		g.Notes = append(g.Notes, name+": "+d.run.Environment[results.EnvKey("pooler", p)]+".")
	}
	g.Notes = append(g.Notes, "The pooler's Parse and Bind are its own count (SHOW STATS, PgBouncer 1.21 and later), of named statements only: "+
		"the ones it keeps and prepares on each server connection once; an unnamed statement passes through uncounted.")
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
	v := d.variantOn(direct, p)
	if v == nil {
		return []string{"not measured"}
	}
	var qps *estimate
	if f, ok := selves[v.Key]; ok {
		qps = &f.QPS
	}
	return d.poolerCellLines(v, qps)
}

// poolerCellLines are a variant's figures, or its error: its QPS against direct (nil for direct
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
			out = append(out, fmt.Sprintf("pooler: named Parse %s from the client, %s to the server; Bind %s",
				units.Number(rt.Pooler["client_parse"]), units.Number(rt.Pooler["server_parse"]), units.Number(rt.Pooler["bind"])))
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

// sqlError finds the database's error as drivers print it: pgx's "ERROR: … (SQLSTATE
// 42P05)", PDO's "SQLSTATE[42P05]: …", go-sql-driver's "Error 1461 (42000): …".
var sqlError = regexp.MustCompile(`ERROR: [^\n]*?\(SQLSTATE \w+\)|SQLSTATE\[\w+\][^\n;]*|Error \d+ \(\w+\): [^\n;]*`)

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

// sqlState is the SQLSTATE in an error as pgx ("(SQLSTATE 42P05)") or PDO
// ("SQLSTATE[42P05]") prints it.
var sqlState = regexp.MustCompile(`SQLSTATE[ \[](\w+)`)

// poolerClause is the first screen's word on the poolers: what each keeps of the
// throughput direct (its lowest and highest variant), what fails through which (by
// SQLSTATE), and the fastest statement mode through the first pooler; "" for a run
// without a pooler.
func (d *data) poolerClause(fs []finding) string {
	poolers := d.poolerDBs()
	if len(poolers) == 0 {
		return ""
	}
	var keeps []string
	for _, p := range poolers {
		if k := keepsThrough(fs, p); k != "" {
			keeps = append(keeps, d.run.DatabaseTitle(p)+" "+k)
		}
	}
	out := "Through a pooler (each variant against itself direct; the matrix is in the section): " + strings.Join(keeps, "; ") + "."
	if f := d.failsThrough(poolers); f != "" {
		out += " Fail: " + f + "."
	}
	if f := fastestThrough(fs, poolers[0]); len(f) > 0 {
		out += " Fastest through " + d.run.DatabaseTitle(poolers[0]) + ": " + strings.Join(f, "; ") + "."
	}
	return out
}

// shortName is a variant as the first screen names it: "pgx cache_statement".
func shortName(v *results.Variant) string { return libraryWord(v) + " " + v.Stmt }

// libraryWord is the first word of v's library: "pgx", "PDO", "database/sql"; its
// layer when the library has no name.
func libraryWord(v *results.Variant) string {
	if lib := strings.Fields(shortLibrary(v)); len(lib) > 0 {
		return lib[0]
	}
	return v.Layer
}

// keepsThrough is the lowest and highest QPS ratio through pooler p against direct:
// "keeps 0.69× [0.67, 0.71] (pgx cache_statement) to 0.91× [0.89, 0.94] (PDO
// interpolate)"; "" when none was estimated.
func keepsThrough(fs []finding, p string) string {
	lo, hi := qpsRange(fs, func(f finding) bool { return f.Question == questions.DB && f.Other.Database == p && f.Other.Op == "" })
	switch {
	case lo == nil:
		return ""
	case lo == hi:
		return fmt.Sprintf("keeps %s (%s)", ratioCI(lo.QPS), shortName(lo.Other))
	}
	return fmt.Sprintf("keeps %s (%s) to %s (%s)", ratioCI(lo.QPS), shortName(lo.Other), ratioCI(hi.QPS), shortName(hi.Other))
}

// failsThrough names the variants invalid through a pooler but valid direct, with the
// SQLSTATE they failed with and the poolers they failed through: "pgx describe_exec
// (26000) through every one; PDO prepare (26000) through PgBouncer 1.18"; "" when
// none fails.
func (d *data) failsThrough(poolers []string) string {
	first := d.run.FirstDatabase()
	var order []string
	where := map[string][]string{}
	for _, v := range d.run.Variants {
		if !slices.Contains(poolers, v.Database) || v.InvalidReason == "" {
			continue
		}
		direct := d.variantOn(v, first)
		if direct == nil || direct.InvalidReason != "" {
			continue
		}
		code := "some requests"
		if m := sqlState.FindStringSubmatch(v.InvalidReason); m != nil {
			code = m[1]
		}
		what := shortName(v) + " (" + code + ")"
		if where[what] == nil {
			order = append(order, what)
		}
		where[what] = append(where[what], dbName(v))
	}
	// Those that failed through the same poolers, together.
	var groups []string
	byPoolers := map[string][]string{}
	for _, what := range order {
		names := strings.Join(where[what], " and ")
		if len(where[what]) == len(poolers) && len(poolers) > 1 {
			names = "every one"
		}
		if byPoolers[names] == nil {
			groups = append(groups, names)
		}
		byPoolers[names] = append(byPoolers[names], what)
	}
	var out []string
	for _, g := range groups {
		out = append(out, strings.Join(byPoolers[g], ", ")+" through "+g)
	}
	return strings.Join(out, "; ")
}

// fastestThrough is, for each library with statement modes compared through pooler p,
// its fastest mode there against its reference mode: "pgx at cache_statement
// (simple_protocol 0.99× [0.97, 1.02] of it)", "PDO at interpolate (1.62× [1.60,
// 1.66] of prepare)".
func fastestThrough(fs []finding, p string) []string {
	best := map[string]finding{}
	var libs []string
	for _, f := range byQuestion(fs, questions.Stmt) {
		if f.Other.Database != p || !f.QPS.OK || f.Other.Op != "" { // get's: the working sets are answer 2's
			continue
		}
		lib := libraryWord(f.Other)
		b, seen := best[lib]
		if !seen {
			libs = append(libs, lib)
		}
		if !seen || f.QPS.Value > b.QPS.Value {
			best[lib] = f
		}
	}
	var out []string
	for _, lib := range libs {
		f := best[lib]
		if f.QPS.Value < 1 {
			out = append(out, fmt.Sprintf("%s at %s (%s %s of it)", lib, f.Base.Stmt, f.Other.Stmt, ratioCI(f.QPS)))
			continue
		}
		out = append(out, fmt.Sprintf("%s at %s (%s of %s)", lib, f.Other.Stmt, ratioCI(f.QPS), f.Base.Stmt))
	}
	return out
}
