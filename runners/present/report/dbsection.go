package report

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"dbbench/dsn/protocol"
	"dbbench/runners/judge/findings"
	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// Where the answers differ between database servers, for a run that measured several
// (dbbench run --db mariadb,mysql): each comparison of the three answers on the second
// server beside the same comparison on the first, called different only when their
// intervals are apart and their ratios differ by more than the margin, with what the
// counts say about why; then each variant on the second server against itself on the
// first.

// twin is one comparison measured on two servers: On (the second) and Ref (the first).
type twin struct{ Ref, On finding }

var dbKey = regexp.MustCompile(`/db=[^/]+`)

// twins pairs each answer's comparison on another server with the same one on the
// first server (the run's first database, results.Run.FirstDatabase).
func twins(fs []finding, first string) []twin {
	ref := map[string]finding{}
	key := func(f finding) string {
		return f.Question + " " + dbKey.ReplaceAllString(f.Base.Key, "") + " " + dbKey.ReplaceAllString(f.Other.Key, "")
	}
	for _, f := range fs {
		if f.Other.Database == first && f.Question != questions.DB {
			ref[key(f)] = f
		}
	}
	var out []twin
	for _, f := range fs {
		if r, ok := ref[key(f)]; ok && f.Other.Database != first && f.Question != questions.DB {
			out = append(out, twin{Ref: r, On: f})
		}
	}
	return out
}

// differs: both ratios measured, their intervals apart, and one more than margin from
// the other. Apart 95% intervals are a conservative test: a difference it calls is
// there; one it misses may be too.
func (t twin) differs() bool {
	a, b := t.Ref.QPS, t.On.QPS
	if !a.OK || !b.OK || !a.HasInterval() || !b.HasInterval() {
		return false
	}
	apart := a.Hi < b.Lo || b.Hi < a.Lo
	return apart && math.Abs(b.Value/a.Value-1) > findings.Margin
}

// dbAnswer is the answer and section for a run on several servers; ok false otherwise.
func (d *data) dbAnswer(fs []finding) (answer, section, bool) {
	ts := twins(fs, d.run.FirstDatabase())
	selves := byQuestion(fs, questions.DB)
	if len(ts) == 0 && len(selves) == 0 {
		return answer{}, section{}, false
	}
	on := selves
	if len(ts) > 0 {
		on = []finding{ts[0].On}
	}
	firstDB, secondDB := d.run.FirstDatabase(), on[0].Other.Database
	first, second := d.run.DatabaseTitle(firstDB), dbName(on[0].Other)
	a := answer{ID: "q-db", Title: first + " and " + second}
	// Comparisons that differ: named on the first screen, grouped by what the counts say
	// differs in the section.
	var causes, names []string
	byCause := map[string][]string{}
	for _, t := range ts {
		if !t.differs() {
			continue
		}
		c := d.cause(t, first, second)
		if byCause[c] == nil {
			causes = append(causes, c)
		}
		figure := fmt.Sprintf("%s %.2f× against %.2f×", shortTwinName(t, fs)+onOther(t, second), t.On.QPS.Value, t.Ref.QPS.Value)
		byCause[c] = append(byCause[c], figure)
		names = append(names, figure)
	}
	var parts []string
	for _, c := range causes {
		parts = append(parts, strings.Join(byCause[c], ", ")+" ("+c+")")
	}
	a.Sentence = fmt.Sprintf("The answers above are %s's. Of %d comparisons measured on both, ", first, len(ts))
	if len(ts) == 0 {
		a.Sentence = fmt.Sprintf("The answers above are %s's.", first)
	} else if len(names) == 0 {
		a.Sentence += fmt.Sprintf("none differs by more than ±%s with its intervals apart: the answers hold on both.", marginText)
	} else if len(d.poolerDBs()) > 0 { // the pooler clause below is the answer; each twin is in the section
		a.Sentence += fmt.Sprintf("%d %s through a pooler (intervals apart, beyond ±%s; each in the section).",
			len(names), units.Plural(len(names), "differs", "differ"), marginText)
	} else {
		a.Sentence += fmt.Sprintf("%d %s on %s (intervals apart, beyond ±%s): %s.",
			len(names), units.Plural(len(names), "differs", "differ"), second, marginText, strings.Join(names, "; "))
	}
	if c := d.poolerClause(fs); c != "" { // each variant against itself, through each pooler
		a.Sentence += " " + c
	} else if c := d.selvesClause(selves, firstDB, secondDB, first, second); c != "" {
		a.Sentence += " " + c
	}
	a.Evidence = "Each in the section below with its interval."
	s := section{ID: a.ID, Title: a.Title, Intro: []string{say("db-twins-intro",
		map[string]any{"Second": second, "First": first, "Margin": findings.Margin})}}
	if len(parts) > 0 {
		s.Paragraphs = append(s.Paragraphs, "What the counts say of each that differs: "+strings.Join(parts, "; ")+"; the rest agree.")
	}
	s.Grids = append(s.Grids, d.twinGrid(ts, fs, first, second), d.serverGrid(fs, first, second))
	if g := d.poolerGrid(fs); g != nil {
		s.Grids = append(s.Grids, *g)
	}
	return a, s, true
}

// selvesClause words each variant on the second server against itself on the first:
// the lowest and highest QPS ratio, and the variants that failed on the second server
// alone (a pooler breaks some statement modes); "" when there are none. A third server
// has its own table in the section.
func (d *data) selvesClause(selves []finding, firstDB, secondDB, first, second string) string {
	var out []string
	if lo, hi := qpsRange(selves, func(f finding) bool { return f.Other.Database == secondDB }); lo != nil {
		out = append(out, fmt.Sprintf("Each variant on %s keeps, of its throughput on %s, %s (%s) to %s (%s)",
			second, first, ratioCI(lo.QPS), withoutDB(lo.Other), ratioCI(hi.QPS), withoutDB(hi.Other)))
	}
	failedFirst := map[string]bool{}
	for _, v := range d.invalid {
		if v.Database == firstDB {
			failedFirst[withoutDB(v)] = true
		}
	}
	var failed []string
	for _, v := range d.invalid {
		if v.Database == secondDB && !failedFirst[withoutDB(v)] {
			failed = append(failed, withoutDB(v))
		}
	}
	if len(failed) > 0 {
		out = append(out, fmt.Sprintf("invalid on %s alone (the error each gave is in the appendix): %s", second, strings.Join(failed, ", ")))
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "; ") + "."
}

// qpsRange is the findings of fs that keep accepts with the lowest and the highest
// QPS ratio, among those with one; nil, nil when there is none.
func qpsRange(fs []finding, keep func(finding) bool) (lo, hi *finding) {
	for i, f := range fs {
		if !f.QPS.OK || !keep(f) {
			continue
		}
		if lo == nil || f.QPS.Value < lo.QPS.Value {
			lo = &fs[i]
		}
		if hi == nil || f.QPS.Value > hi.QPS.Value {
			hi = &fs[i]
		}
	}
	return lo, hi
}

// variantOn is v's variant on db (every other key the same), nil when the run has none.
func (d *data) variantOn(v *results.Variant, db string) *results.Variant {
	return d.run.Variant(dbKey.ReplaceAllString(v.Key, "") + "/db=" + db)
}

// withoutDB is v's label without its server: the same variant on either.
func withoutDB(v *results.Variant) string { return dbKey.ReplaceAllString(label(v), "") }

// twinName is the comparison in a few words: "GORM against database/sql (Go, interpolate)".
func twinName(t twin, fs []finding) string {
	return fmt.Sprintf("%s against %s (%s, %s/%s)", findingName(t.On, fs), shortLibrary(t.On.Base), langName(t.On.Other.Lang), t.On.Base.Stmt, t.On.Base.Conn)
}

// cause says what the counts show changes differently between the two sides of t on
// the second server than on the first, or that they show nothing: then it is the
// servers' own speed at the same work.
func (d *data) cause(t twin, first, _ string) string {
	var out []string
	ref, on := t.Ref, t.On
	second := dbName(on.Other) // the twin's own: a run of three servers has two seconds
	c1, n1 := commandChange(ref.Base, ref.Other)
	c2, n2 := commandChange(on.Base, on.Other)
	if c1 != c2 || n1 != n2 {
		out = append(out, fmt.Sprintf("commands %s on %s, %s on %s", orUnchanged(c2+" "+n2), second, orUnchanged(c1+" "+n1), first))
	}
	if lb, lo := logOnly(on.Base), logOnly(on.Other); lb != lo {
		out = append(out, fmt.Sprintf("%s prepares %s's statement again (log %s)", second, shortLibrary(sideWith(lb, on)), orUnchanged(lb+lo)))
	}
	db1, db2 := fromDB(ref.Other)-fromDB(ref.Base), fromDB(on.Other)-fromDB(on.Base)
	if on.Question != questions.Conn && math.Abs(db2-db1) >= 1 {
		out = append(out, fmt.Sprintf("%+.0f B from the database per request on %s, %+.0f on %s", db2, second, db1, first))
	}
	if on.Question == questions.Conn {
		out = append(out, "a new connection costs the server "+d.connectionContrast(ref.Other.Database, on.Other.Database))
	}
	if len(out) == 0 {
		return "the same commands and bytes on both: the servers' own speed at the same work"
	}
	return strings.Join(out, "; ")
}

// onOther is " on PostgreSQL" for a twin on another server than the section's second
// (a run of three servers), "" otherwise: its ratio then stands in second's column.
func onOther(t twin, second string) string {
	if name := dbName(t.On.Other); name != second {
		return " on " + name
	}
	return ""
}

// shortTwinName is "PDO per-request (PHP, prepare)".
func shortTwinName(t twin, fs []finding) string {
	return fmt.Sprintf("%s (%s, %s)", findingName(t.On, fs), langName(t.On.Other.Lang), t.On.Base.Stmt)
}

func orUnchanged(s string) string {
	if strings.TrimSpace(s) == "" {
		return "unchanged"
	}
	return strings.TrimSpace(s)
}

// logOnly is the commands v's server logs beyond what v sends, as "Prepare +1".
func logOnly(v *results.Variant) string {
	if v.Roundtrips == nil {
		return ""
	}
	return countsLine(v.Roundtrips.LogOnly)
}

// sideWith is the side of f whose log-only commands are the non-empty one.
func sideWith(base string, f finding) *results.Variant {
	if base != "" {
		return f.Base
	}
	return f.Other
}

func fromDB(v *results.Variant) float64 {
	if v.Roundtrips == nil {
		return 0
	}
	return v.Roundtrips.BytesFromDB
}

// countsLine is "Prepare +1".
func countsLine(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %+d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// connectionContrast is what opening a connection cost the servers without TLS, as
// the run measured it: "412 µs of CPU on MySQL 8.0 (caching_sha2_password, cached)
// against 190 µs on MariaDB (mysql_native_password)".
func (d *data) connectionContrast(refDB, onDB string) string {
	pick := func(db string) *results.ConnectCost {
		server := db
		if server == "" {
			server = "mariadb"
		}
		for _, c := range d.run.Connections[server] {
			if !c.TLS && c.Path != protocol.PathFullRSA { // the steady state: no first login
				return c
			}
		}
		return nil
	}
	a, b := pick(refDB), pick(onDB)
	if a == nil || b == nil {
		return "not measured in this run"
	}
	name := d.run.DatabaseTitle
	return fmt.Sprintf("%.0f µs of CPU on %s (%s) against %.0f µs on %s (%s)", b.ServerCPU*1e6, name(onDB), b.Path, a.ServerCPU*1e6, name(refDB), a.Path)
}

// twinGrid lists every comparison measured on both servers.
func (d *data) twinGrid(ts []twin, fs []finding, first, second string) grid {
	g := grid{ID: "t-db-answers", Caption: "The answers' comparisons on each server: QPS ratio [95% interval]",
		Head: []string{"comparison", first, second, "differs", "what the counts show"}}
	for _, t := range ts {
		verdict, why := "no", ""
		if t.differs() {
			verdict, why = "yes", d.cause(t, first, second)
		}
		g.Rows = append(g.Rows, []cell{textCell(twinName(t, fs) + onOther(t, second)),
			textCell(ratioCI(t.Ref.QPS)), textCell(ratioCI(t.On.QPS)), textCell(verdict), textCell(why)})
	}
	return g
}

// serverGrid lists each variant on the second server against itself on the first:
// throughput, and the database's CPU per request.
func (d *data) serverGrid(fs []finding, first, second string) grid {
	g := grid{ID: "t-db-variants", Caption: fmt.Sprintf("Each variant on %s against itself on %s: ratios [95%% intervals] from the pairs", second, first),
		Head: []string{"variant", "QPS", "database CPU per request", "commands per request"}}
	selves := byQuestion(fs, questions.DB)
	several := slices.ContainsFunc(selves, func(f finding) bool { return f.Other.Database != selves[0].Other.Database })
	if several { // a run of three servers or more: each row names its own
		g.Caption = fmt.Sprintf("Each variant on another server against itself on %s: ratios [95%% intervals] from the pairs", first)
		g.Head = slices.Insert(g.Head, 1, "on")
	}
	for _, f := range selves {
		dbCPU := "not measured"
		if f.Paired {
			if e := stored(d.judged.Comparisons[f.Comp].DBCPU); e.OK {
				dbCPU = ratioCI(e)
			}
		}
		cmds := "–"
		if a, b := f.Base.Roundtrips, f.Other.Roundtrips; a != nil && b != nil {
			cmds = commandList(b)
			if ca := commandList(a); ca != cmds {
				cmds += " (on " + first + ": " + ca + ")"
			}
		}
		row := []cell{textCell(withoutDB(f.Base)), textCell(ratioCI(f.QPS)), textCell(dbCPU), textCell(cmds)}
		if several {
			row = slices.Insert(row, 1, textCell(dbName(f.Other)))
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}
