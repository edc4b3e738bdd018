package report

import (
	"fmt"
	"slices"
	"strings"

	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// The statement working set (the statements preset): get through 100 or 1000
// statement texts against get's one, for each variant that reads through them: when a
// statement cache overflows (pgx's 512 per connection, PgBouncer's
// max_prepared_statements, database/sql's statements prepared once) and what it costs.

// textsGrid is a row per variant, a column per working set; nil when the run measured
// none.
func (d *data) textsGrid(fs []finding) *grid {
	texts := byQuestion(fs, questions.Texts)
	if len(texts) == 0 {
		return nil
	}
	var sizes []int
	for _, v := range d.run.Variants {
		if v.Texts > 0 && !slices.Contains(sizes, v.Texts) {
			sizes = append(sizes, v.Texts)
		}
	}
	slices.Sort(sizes)
	g := &grid{ID: "t-texts", Caption: "A statement working set: get through N statement texts against get's one (the same row, the texts differ in a comment), QPS ratio [95% interval]; the statements prepared per request; the server's memory the variant's connections took",
		Head: []string{"variant", "1 text"}}
	for _, n := range sizes {
		g.Head = append(g.Head, fmt.Sprintf("%d texts", n))
	}
	qps := map[string]*estimate{}
	var rows []*results.Variant
	for _, f := range texts {
		qps[f.Other.Key] = &f.QPS
		if !slices.Contains(rows, f.Base) {
			rows = append(rows, f.Base)
		}
	}
	for _, b := range rows {
		row := []cell{textCell(withoutOp(b)), textCell(d.textsLines(b, nil)...)}
		for _, n := range sizes {
			v := d.withTexts(b, n)
			if v == nil {
				row = append(row, textCell("–"))
				continue
			}
			row = append(row, textCell(d.textsLines(v, qps[v.Key])...))
		}
		g.Rows = append(g.Rows, row)
	}
	g.Notes = []string{"Prepares per request: the client's (Prepare or Parse at the counting proxy, one request at a time after a warm-up of 5 reads of every text per connection), " +
		"the server's own count in the slices (MySQL's Com_stmt_prepare; PostgreSQL keeps none) and, through a pooler, the Parses it sent the server. " +
		"Server memory: what the server's private memory grew by while the variant's target started and warmed up: " +
		"each backend's own on PostgreSQL; on MariaDB and MySQL, one process, its allocator's growth, which memory another variant freed can hide (tens of MiB either way)."}
	return g
}

// textsLines are a variant's figures: its QPS against get's one text (nil for that
// one), its prepares per request, and the server memory its connections took.
func (d *data) textsLines(v *results.Variant, qps *estimate) []string {
	if v.InvalidReason != "" {
		return []string{"fails: " + userError(v.InvalidReason)}
	}
	var out []string
	if qps != nil {
		out = append(out, "QPS "+ratioCI(*qps))
	}
	var prepares []string
	if rt := v.Roundtrips; rt != nil {
		per := rt.PerCommand()
		prepares = append(prepares, "client "+units.Number(per["Prepare"]+per["Parse"]))
		if n, ok := rt.Pooler["server_parse"]; ok {
			prepares = append(prepares, "pooler to server "+units.Number(n))
		}
	}
	if s, ok := d.summary(v, units.DBPrepares); ok {
		prepares = append(prepares, "server "+units.Number(s.Center))
	}
	if len(prepares) > 0 {
		out = append(out, "prepares/req: "+strings.Join(prepares, ", "))
	}
	if v.ServerMemory != 0 {
		out = append(out, "server memory "+units.Signed(units.BinaryBytes(v.ServerMemory)))
	}
	return out
}

// withoutOp is v's label without its op: the same variant at every working set.
func withoutOp(v *results.Variant) string {
	return strings.TrimSuffix(strings.ReplaceAll(label(v), "/op="+v.Op, ""), "/op=get")
}

// withTexts is b's variant at a working set of n texts (every key but op the same),
// valid or not; nil when the run has none.
func (d *data) withTexts(b *results.Variant, n int) *results.Variant {
	for _, v := range d.run.Variants {
		if v.Texts == n && withoutOp(v) == withoutOp(b) {
			return v
		}
	}
	return nil
}

// textsPointer is answer 2's word on the working sets: each variant at its largest
// working set against its one text, with the statements it prepared per request and
// the server memory its connections took; "" for a run without working sets.
func (d *data) textsPointer(fs []finding) string {
	texts := byQuestion(fs, questions.Texts)
	largest := 0
	for _, v := range d.run.Variants {
		largest = max(largest, v.Texts)
	}
	if largest == 0 {
		return ""
	}
	qps := map[string]estimate{}
	for _, f := range texts {
		qps[f.Other.Key] = f.QPS
	}
	var parts, untouched, settings []string
	overflowed := false
	for _, b := range d.run.Variants {
		v := d.withTexts(b, largest)
		if b.Texts != 0 || !b.DB || v == nil {
			continue
		}
		name := shortName(b) + d.whereName(b)
		if set := textsSetting(v, b, largest); set != "" && !slices.Contains(settings, set) {
			settings = append(settings, set)
		}
		e, ok := qps[v.Key]
		switch {
		case v.InvalidReason != "":
			overflowed = true
			parts = append(parts, name+" fails ("+userError(v.InvalidReason)+")")
		case ok:
			cost := textsCost(v, b)
			overflowed = overflowed || cost != ""
			if cost == "" && e.HasInterval() && e.Hi >= 1 {
				untouched = append(untouched, name)
			}
			parts = append(parts, name+" keeps "+ratioCI(e)+cost)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	out := fmt.Sprintf("At %d statement texts against one (below): %s.", largest, strings.Join(parts, "; "))
	if overflowed && len(untouched) > 0 {
		out += " Where the statements outnumber a cache or a limit, they cost as above; what this many texts did not slow: " + strings.Join(untouched, ", ") + "."
	}
	if len(settings) > 0 {
		out += fmt.Sprintf(" To keep %d texts prepared, set %s.", largest, strings.Join(settings, "; "))
	}
	return out
}

// textsSetting is the setting that would have held v's n texts where v overflowed a
// cache or a limit (b is v at one text), with what it ships at; "" where v did not
// or no setting helps (a mode a pooler refuses is the pooler answer's).
func textsSetting(v, b *results.Variant, n int) string {
	switch {
	case strings.Contains(v.InvalidReason, "max_prepared_stmt_count"):
		return fmt.Sprintf("max_prepared_stmt_count to at least %d texts × %d connections = %d (MariaDB and MySQL ship 16382), or interpolate", n, v.Pool, n*v.Pool)
	case v.InvalidReason != "" || v.Roundtrips == nil:
		return ""
	case v.Roundtrips.Pooler["server_parse"] >= 0.01:
		return fmt.Sprintf("PgBouncer's max_prepared_statements to at least %d (1.24 ships 200)", n)
	}
	if textsCost(v, b) == "" {
		return ""
	}
	switch v.Stmt {
	case "cache_statement":
		return fmt.Sprintf("pgx's statement_cache_capacity to at least %d (it ships 512 per connection)", n)
	case "cache_describe":
		return fmt.Sprintf("pgx's description_cache_capacity to at least %d (it ships 512 per connection)", n)
	}
	return ""
}

// whereName is " through PgBouncer" (a db behind a pooler, as the run's environment
// says) or " on MySQL 8.0" for a variant of a run's other server, "" on its first.
func (d *data) whereName(v *results.Variant) string {
	switch {
	case v.Database == "" || v.Database == d.run.FirstDatabase():
		return ""
	case d.run.Environment[results.EnvKey("pooler", v.Database)] != "":
		return " through " + dbName(v)
	}
	return " on " + dbName(v)
}

// textsCost is what a working set costs v beyond b's one text, where it costs
// anything: " (0.45 more prepares per request, the pooler's 0.81 to the server; server
// memory +515 MiB against +214 MiB)"; "" when it prepares nothing more.
func textsCost(v, b *results.Variant) string {
	if v.Roundtrips == nil {
		return ""
	}
	prepared := func(v *results.Variant) float64 {
		if v.Roundtrips == nil {
			return 0
		}
		per := v.Roundtrips.PerCommand()
		return per["Prepare"] + per["Parse"]
	}
	prepares := prepared(v) - prepared(b) // a prepare per query prepares at one text too
	var out []string
	if prepares >= 0.01 {
		out = append(out, units.Number(prepares)+" more prepares per request")
	}
	if n := v.Roundtrips.Pooler["server_parse"]; n >= 0.01 {
		out = append(out, "the pooler's "+units.Number(n)+" to the server")
	}
	if grew := v.ServerMemory - b.ServerMemory; len(out) > 0 && b.ServerMemory > 0 && grew > 16<<20 {
		out = append(out, "server memory "+units.Signed(units.BinaryBytes(v.ServerMemory))+" against "+units.Signed(units.BinaryBytes(b.ServerMemory)))
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, ", ") + ")"
}
