package report

import (
	"fmt"
	"slices"
	"strings"

	"dbbench/runners/judge/questions"
	"dbbench/runners/present/chart"
	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// What every answer of the first screen is made of: the answer with its small chart,
// the groups of findings it names, and the evidence line under it.

// answer is one of the three questions answered in one sentence, with the findings its
// small chart shows (grouped under headings) and the section that holds its evidence.
type answer struct {
	ID       string // the section's anchor: q-layer, q-stmt, q-conn
	Title    string
	Sentence string
	Evidence string // how many comparisons, pairs, and whether they reached the target
	Chart    string // the title of its small chart
	Groups   []answerGroup
	// Forest, when set, is the chart itself, for an answer whose findings are not
	// Groups' QPS ratios (dbbench ab's).
	Forest *chart.Forest
}

// chart is the small chart beside the answer, when it has one.
func (a answer) chart() (chart.Panel, bool) {
	switch {
	case a.Forest != nil:
		return *a.Forest, true
	case len(a.Groups) > 0:
		return answerPanel(a), true
	}
	return nil, false
}

type answerGroup struct {
	Heading  string
	Findings []finding
}

// group is a language, server and database: the findings a chunk of a sentence
// speaks of.
type group struct{ lang, server, db string }

func groupOf(v *results.Variant) group { return group{v.Lang, v.Server, v.Database} }

func (f finding) group() group { return groupOf(f.Other) }

// groupsOf lists the groups of fs in order of appearance.
func groupsOf(fs []finding) []group {
	return distinct(fs, func(f finding) group { return groupOf(f.Other) })
}

// distinct lists key of each finding of fs once, in order of appearance.
func distinct[K comparable](fs []finding, key func(finding) K) []K {
	var out []K
	for _, f := range fs {
		if k := key(f); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func inGroup(fs []finding, g group) []finding {
	return slices.DeleteFunc(slices.Clone(fs), func(f finding) bool { return groupOf(f.Other) != g })
}

// groupName is "Go", or "PHP under php-fpm" when the run measured the language under
// several servers, with " on MySQL 8.0" when it measured several databases.
func groupName(g group, fs []finding) string {
	name := langName(g.lang)
	for _, f := range fs {
		if f.Other.Lang == g.lang && f.Other.Server != g.server {
			name += " under " + serverName(g.server)
			break
		}
	}
	return name + onDB(fs, g.db)
}

// onDB is " on MySQL 8.0" when fs was measured on another database server than db
// too, so that a figure says its server; "" in a run on one server.
func onDB(fs []finding, db string) string {
	if !slices.ContainsFunc(fs, func(f finding) bool { return f.Other.Database != db }) {
		return ""
	}
	for _, f := range fs {
		if f.Other.Database == db {
			return " on " + dbName(f.Other)
		}
	}
	return " on " + db
}

// setting is what a variant's measurement shares with its neighbours in a table:
// "interpolate/persistent/64".
func setting(v *results.Variant) string { return fmt.Sprintf("%s/%s/%d", v.Stmt, v.Conn, v.Pool) }

// mostCommon picks, among fs, the setting shared by the most findings, preferring a
// pooled connection, then the first seen: the setting a sentence speaks of.
func mostCommon(fs []finding) string {
	count := map[string]int{}
	var order []string
	for _, f := range fs {
		s := setting(f.Other)
		if count[s] == 0 {
			order = append(order, s)
		}
		count[s]++
	}
	best := ""
	score := func(s string) int {
		n := 2 * count[s]
		if strings.Contains(s, "/persistent/") {
			n++
		}
		return n
	}
	for _, s := range order {
		if best == "" || score(s) > score(best) {
			best = s
		}
	}
	return best
}

func atSetting(fs []finding, s string) []finding {
	return slices.DeleteFunc(slices.Clone(fs), func(f finding) bool { return setting(f.Other) != s })
}

// evidence summarises the comparisons behind an answer: how many, from how many pairs,
// how many reached the precision target, and which the marks leave undecided (a
// comparison can reach the target, a narrow interval, and still hold 1 and reach past
// the ±2% margin).
func evidence(fs []finding) string {
	if len(fs) == 0 {
		return ""
	}
	if !fs[0].Paired {
		return fmt.Sprintf("%d comparisons of unpaired medians (this run was not measured in pairs).", len(fs))
	}
	lo, hi, reached := fs[0].QPS.N, fs[0].QPS.N, 0
	for _, f := range fs {
		lo, hi = min(lo, f.QPS.N), max(hi, f.QPS.N)
		if f.Reached {
			reached++
		}
	}
	pairs := fmt.Sprint(lo)
	if hi != lo {
		pairs = fmt.Sprintf("%d–%d", lo, hi)
	}
	aim := target(fs[0].Pairing) + " " + term("target", "precision-target")
	got := fmt.Sprintf("%d of %d reached the %s", reached, len(fs), aim)
	if reached == len(fs) {
		got = "all reached the " + aim
	}
	return fmt.Sprintf("%d comparisons in %s, %s pairs each; %s; %s.", len(fs), pairsOf(fs[0].Pairing), pairs, got, undecided(fs))
}

// undecided says which comparisons of fs are marked ? and in which figure.
func undecided(fs []finding) string {
	var open []string
	for _, f := range fs {
		var what []string
		for _, e := range []struct {
			name string
			e    estimate
		}{{"QPS", f.QPS}, {"app CPU", f.CPU}} {
			if e.e.OK && e.e.Verdict == stats.Undecided {
				what = append(what, e.name)
			}
		}
		if len(what) > 0 {
			open = append(open, findingName(f, fs)+" "+strings.Join(what, " and "))
		}
	}
	if len(open) == 0 {
		return "none " + term("undecided", "marks")
	}
	return fmt.Sprintf("%d %s (?): %s", len(open), term("undecided", "marks"), strings.Join(open, ", "))
}

// findingName is the other side of a comparison in a few words: "sqlx", "Eloquent
// (php-fpm)" when fs has the library under another server too, "database/sql
// interpolate", "PDO resident workers".
func findingName(f finding, fs []finding) string {
	lib := shortLibrary(f.Other)
	switch f.Question {
	case questions.Layer:
		if slices.ContainsFunc(fs, func(g finding) bool { return shortLibrary(g.Other) == lib && g.Other.Server != f.Other.Server }) {
			return fmt.Sprintf("%s (%s)", lib, serverName(f.Other.Server))
		}
		return lib
	case questions.Stmt:
		return lib + " " + f.Other.Stmt
	case questions.Conn:
		return lib + " " + f.Other.Conn
	case questions.Server:
		return lib + " " + serverName(f.Other.Server)
	case questions.DB:
		return lib + " on " + dbName(f.Other)
	}
	return label(f.Other)
}

// items names each finding's library with its QPS ratio: "GORM 0.80× [0.78, 0.82]".
func items(fs []finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, shortLibrary(f.Other)+" "+ratioCI(f.QPS))
	}
	return out
}

// sentence capitalises the clauses' first letter and ends them with a full stop.
func sentence(clauses []string) string {
	s := strings.Join(clauses, "; ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// sentenceOr is sentence(clauses), or none when there is no clause.
func sentenceOr(clauses []string, none string) string {
	if len(clauses) == 0 {
		return none
	}
	return sentence(clauses)
}

// firstBaseline puts the findings of the language's baseline layer first, keeps n.
func firstBaseline(fs []finding, n int) []finding {
	out := slices.Clone(fs)
	slices.SortStableFunc(out, func(a, b finding) int {
		return boolInt(a.Other.Kind != "raw") - boolInt(b.Other.Kind != "raw")
	})
	return out[:min(n, len(out))]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// pairsOf says how a run's pairs were measured (runners/measure/run/README.md), its terms
// marked for the glossary.
func pairsOf(p *results.Pairing) string {
	slices := term("slices", "slice")
	switch {
	case p == nil:
		return term("pairs", "pairs")
	case p.Design == "interleave":
		if p.Slice != "" {
			slices = p.Slice + " " + slices
		}
		return term("interleaved pairs", "pairs") + " of " + slices // the glossary says a slice is made of turns
	case p.Design == "alternate":
		return term("pairs", "pairs") + " of fresh " + slices + ", in random order"
	}
	return term("pairs", "pairs") + " of adjacent " + slices
}

// target is the precision a run aimed at: "±3%".
func target(p *results.Pairing) string {
	if p == nil || p.Precision == 0 {
		return "precision"
	}
	return fmt.Sprintf("±%g%%", 100*p.Precision)
}
