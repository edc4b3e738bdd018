package report

import (
	"fmt"
	"slices"
	"strings"

	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// The first screen's three answers, in one sentence each: what each layer costs over
// the raw driver (layerAnswer), what a statement mode is worth (stmtAnswer), what a
// connection per request costs (connAnswer). answer.go holds what they are made of.

// kinds are the layer kinds in the order an answer names them, with their plurals.
type kindName struct{ kind, one, many string }

var kinds = []kindName{
	{"orm", "ORM", "ORMs"}, {"builder", "builder", "builders"}, {"raw", "wrapper", "wrappers"}, {"", "layer", "layers"},
}

// layerAnswer answers question 1 at each language's default server (langs) and each
// group's most common setting: what each ORM keeps of the raw driver's throughput, or
// when a group has no ORM, each kind's layers. The section has every layer, server and
// setting.
func layerAnswer(all []finding, langs map[string]*results.Lang) answer {
	fs := byQuestion(all, questions.Layer)
	a := answer{ID: "q-layer", Title: "1. What a layer costs", Evidence: evidence(fs),
		Chart: "QPS of each layer ÷ the raw driver's"}
	var settings []string
	ormsOnly := true // every group has an ORM: the lead names the kind, the chunks the libraries
	for _, g := range groupsOf(atDefaultServer(fs, langs)) {
		at := byKind(atSetting(inGroup(fs, g), mostCommon(inGroup(fs, g))))
		b := at[0].Base
		settings = append(settings, b.Stmt+"/"+b.Conn)
		ormsOnly = ormsOnly && kindRank(at[0]) == 0
		a.Groups = append(a.Groups, answerGroup{Heading: groupName(g, fs) + ", " + shortLibrary(b) + " at " + settings[len(settings)-1], Findings: at})
	}
	if len(a.Groups) == 0 {
		a.Sentence = "No layer was measured against its language's raw driver at the same server, stmt, conn and pool."
		return a
	}
	shared := len(slices.Compact(slices.Clone(settings))) == 1
	var chunks []string
	others := false // a builder or wrapper left to the section
	for _, g := range a.Groups {
		var parts []string
		for k, kn := range kinds {
			of := slices.DeleteFunc(slices.Clone(g.Findings), func(f finding) bool { return kindRank(f) != k })
			switch {
			case ormsOnly && k > 0:
				others = others || len(of) > 0
			case ormsOnly:
				parts = append(parts, kindPart(of, "", "")...)
			default:
				parts = append(parts, kindPart(of, kn.one, kn.many)...)
			}
		}
		head := g.Heading
		if shared { // one setting for all: said once, each group by its language alone
			head = langName(g.Findings[0].Other.Lang) + onDB(fs, g.Findings[0].Other.Database)
		}
		chunks = append(chunks, head+": "+strings.Join(parts, ", "))
	}
	if others {
		chunks = append(chunks, "the others below")
	}
	lead := "Of the raw driver's throughput, each layer keeps (" + term("95% intervals", "wilcoxon-interval")
	if ormsOnly {
		lead = "Of the raw driver's throughput, an ORM keeps (" + term("95% intervals", "wilcoxon-interval")
	}
	if shared {
		lead += ", at " + settings[0]
	}
	a.Sentence = lead + ") — " + sentence(chunks)
	return a
}

// atDefaultServer keeps the findings at each language's default server (php-fpm for
// PHP), or, when the run did not measure it, at the first server it measured: the first
// screen's. All of fs when langs does not say.
func atDefaultServer(fs []finding, langs map[string]*results.Lang) []finding {
	keep := map[string]string{} // lang → its server on the first screen
	for _, f := range fs {
		l := langs[f.Other.Lang]
		switch {
		case l == nil || l.Default == "":
		case f.Other.Server == l.Default:
			keep[f.Other.Lang] = l.Default
		case keep[f.Other.Lang] == "":
			keep[f.Other.Lang] = f.Other.Server
		}
	}
	return slices.DeleteFunc(slices.Clone(fs), func(f finding) bool {
		s, ok := keep[f.Other.Lang]
		return ok && f.Other.Server != s
	})
}

// byKind orders findings by kind (ORMs, builders, wrappers, others), then by ratio.
func byKind(fs []finding) []finding {
	out := slices.Clone(fs)
	slices.SortStableFunc(out, func(a, b finding) int {
		if d := kindRank(a) - kindRank(b); d != 0 {
			return d
		}
		return cmpFloat(a.QPS.Value, b.QPS.Value)
	})
	return out
}

// kindRank is the place of f's kind in kinds; the last entry takes every other kind.
func kindRank(f finding) int {
	i := slices.IndexFunc(kinds, func(k kindName) bool { return k.kind == f.Other.Kind })
	if i < 0 {
		return len(kinds) - 1
	}
	return i
}

// kindPart names one layer of a kind with its ratio, or the range of several; the
// kind's names (one, many) are left out when empty, where the sentence names the kind.
func kindPart(fs []finding, one, many string) []string {
	switch len(fs) {
	case 0:
		return nil
	case 1:
		lib := shortLibrary(fs[0].Other)
		if one != "" && !strings.Contains(strings.ToLower(lib), strings.ToLower(one)) {
			lib += " (" + one + ")"
		}
		return []string{lib + " " + ratioCI(fs[0].QPS)}
	}
	fs = slices.Clone(fs)
	slices.SortFunc(fs, func(a, b finding) int { return cmpFloat(a.QPS.Value, b.QPS.Value) })
	lo, hi := fs[0], fs[len(fs)-1]
	if ratioCI(lo.QPS) == ratioCI(hi.QPS) { // a range whose ends read the same is one figure
		var names []string
		for _, f := range fs {
			names = append(names, shortLibrary(f.Other))
		}
		if many == "" {
			return []string{fmt.Sprintf("%s %s", strings.Join(names, ", "), ratioCI(lo.QPS))}
		}
		return []string{fmt.Sprintf("%s (%s) %s", many, strings.Join(names, ", "), ratioCI(lo.QPS))}
	}
	return []string{strings.TrimSpace(fmt.Sprintf("%s %s (%s) to %s (%s)", many, ratioCI(lo.QPS), shortLibrary(lo.Other), ratioCI(hi.QPS), shortLibrary(hi.Other)))}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// stmtAnswer answers question 2 with pooled connections: per statement mode and
// language, what to set in the language's own terms (langs, from matrix.yaml's modes),
// what it changes in commands and round trips, and the throughput it gives here on
// each database server, the raw driver first.
func stmtAnswer(all []finding, langs map[string]*results.Lang) answer {
	section := byQuestion(all, questions.Stmt)
	fs := atDefaultServer(section, langs)
	if pooled := slices.DeleteFunc(slices.Clone(fs), func(f finding) bool { return f.Other.Conn != "persistent" }); len(pooled) > 0 {
		fs = pooled
	}
	refs := distinct(fs, func(f finding) string { return f.Base.Stmt })
	chart := "QPS of each mode ÷ each layer's reference mode's"
	if len(refs) == 1 {
		chart = "QPS of each mode ÷ " + refs[0] + "'s"
	}
	a := answer{ID: "q-stmt", Title: "2. What a statement mode is worth", Evidence: evidence(section), Chart: chart}
	var clauses []string
	settingLed := false // a clause says what to set: the sentence names what it is against
	// Against a prepare per query the sentence answers each language's first mode
	// (interpolate); where a driver's own default is the reference (pgx), its best other
	// mode. The chart and section show all.
	againstPrepare := map[string]bool{} // languages answered against prepare
	worded := bestModes(fs)
	for _, stmt := range stmtsOf(fs) {
		of := slices.DeleteFunc(slices.Clone(fs), func(f finding) bool { return f.Other.Stmt != stmt })
		ref := of[0].Base.Stmt // a mode belongs to one driver, compared with its reference
		wordIt := ref == questions.RefStmt || worded[stmt]
		var unset []string
		for _, lang := range langsOf(of) {
			var shown [][]finding
			for _, g := range groupsOf(of) {
				if g.lang == lang {
					s := firstBaseline(inGroup(of, g), 3)
					shown = append(shown, s[:min(len(s), shownPer(ref))])
					a.Groups = append(a.Groups, answerGroup{Heading: groupName(g, fs) + ": " + stmtPhrase(stmt, ref, false), Findings: s})
				}
			}
			if !wordIt { // in the chart and the section only
				continue
			}
			if ref == questions.RefStmt {
				if againstPrepare[lang] {
					continue
				}
				againstPrepare[lang] = true
			}
			chunk, ok := settingChunk(lang, fs, shown, langs[lang])
			switch {
			case ok && len(refs) > 1: // beside another driver's reference: named each time
				clauses = append(clauses, stmtPhrase(stmt, ref, true)+": "+chunk)
			case ok:
				clauses, settingLed = append(clauses, chunk), true
			default:
				unset = append(unset, chunk)
			}
		}
		if len(unset) > 0 {
			clauses = append(clauses, stmtPhrase(stmt, ref, true)+": "+strings.Join(unset, "; "))
		}
	}
	a.Sentence = sentenceOr(clauses, "No interpolate or prepared variant was measured against a prepare variant.")
	if settingLed {
		a.Sentence = "Throughput against a prepare per query — " + a.Sentence
	}
	return a
}

// shownPer is how many findings of a group the sentence gives (the chart and the
// section give three): three against a prepare per query, one against a driver's own
// default, where each mode is a clause of its own.
func shownPer(ref string) int {
	if ref == questions.RefStmt {
		return 3
	}
	return 1
}

// bestModes names, of the modes compared with a driver's own default (pgx's
// cache_statement) rather than with a prepare per query, the one whose raw layer keeps
// the most throughput: the choice a team makes. The others, the mode to avoid among
// them, are in the answer's chart and section (the first screen is short).
func bestModes(fs []finding) map[string]bool {
	best := map[string]finding{} // by reference mode
	for _, f := range fs {
		ref := f.Base.Stmt
		if ref == questions.RefStmt || f.Other.Kind != "raw" || !f.QPS.OK {
			continue
		}
		if b, ok := best[ref]; !ok || f.QPS.Value > b.QPS.Value {
			best[ref] = f
		}
	}
	out := map[string]bool{}
	for ref := range best {
		out[best[ref].Other.Stmt] = true
	}
	return out
}

// settingChunk words one language's findings of a statement mode, one list per
// database server: led by what to set when the language says (ok), else as a list of
// ratios for stmtPhrase to lead.
func settingChunk(lang string, fs []finding, shown [][]finding, l *results.Lang) (chunk string, ok bool) {
	f := shown[0][0]
	var st *results.ModeSetting
	if l != nil {
		st = l.Modes[f.Other.Stmt]
	}
	change := ""
	if count, names := commandChange(f.Base, f.Other); count != "" {
		change = commandsTerm(count)
		switch {
		case st != nil:
			change += tripChange(f.Base, f.Other)
		case f.Base.Roundtrips.Speaks().Batched():
			// A Sync answers a batch: messages are no round trips, so both are given;
			// which messages, the answer's section lists.
			change += tripChange(f.Base, f.Other)
		default:
			change += ": " + names
		}
	}
	var lists []string
	for _, s := range shown {
		lists = append(lists, strings.Join(items(s), ", ")+onDB(fs, s[0].Other.Database))
	}
	if st == nil {
		chunk = langName(lang) + " " + strings.Join(lists, "; ")
		if change != "" {
			chunk += " (" + change + ")"
		}
		return chunk, false
	}
	chunk = fmt.Sprintf("%s: %s (default: %s)", langName(lang), st.Set, st.Default)
	if change != "" {
		chunk += ": " + change
	}
	return chunk + "; " + strings.Join(lists, ", "), true
}

// tripChange is ", 2 → 1 round trips" between two variants' counts, ", 1 round trip
// each" where they are the same, "" when either was not counted: the round trips beside
// the commands wherever a change is worded.
func tripChange(base, other *results.Variant) string {
	b, o := base.Roundtrips, other.Roundtrips
	if b == nil || o == nil {
		return ""
	}
	_, rb := b.Commands()
	_, ro := o.Commands()
	if units.Number(rb) == units.Number(ro) {
		return ", " + units.Count(ro, "round trip") + " each"
	}
	return fmt.Sprintf(", %s → %s round trips", units.Number(rb), units.Number(ro))
}

// modeOf is what lang's drivers set for mode (matrix.yaml's modes), nil when unknown.
func modeOf(langs map[string]*results.Lang, lang, mode string) *results.ModeSetting {
	if l := langs[lang]; l != nil {
		return l.Modes[mode]
	}
	return nil
}

// caveats is what to know before switching to each mode the findings measured (mode
// says which side's mode a team would set: the statement mode, or the pooled
// connection), one line per language and mode (matrix.yaml's modes): "" when none says.
func caveats(langs map[string]*results.Lang, fs []finding, mode func(finding) string) string {
	var lines []string
	type langMode struct{ lang, mode string }
	for _, lm := range distinct(fs, func(f finding) langMode { return langMode{f.Other.Lang, mode(f)} }) {
		if st := modeOf(langs, lm.lang, lm.mode); st != nil && st.Caveat != "" {
			lines = append(lines, fmt.Sprintf("%s, %s: %s.", langName(lm.lang), lm.mode, st.Caveat))
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "Before switching: " + strings.Join(lines, " ")
}

// stmtsOf lists the other stmt values of fs: interpolate, prepared, then any other.
func stmtsOf(fs []finding) []string {
	out := distinct(fs, func(f finding) string { return f.Other.Stmt })
	rank := func(s string) int {
		return map[string]int{"interpolate": 0, "simple_protocol": 0, "prepared": 1}[s] + boolInt(s != "interpolate" && s != "simple_protocol" && s != "prepared")*2
	}
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}

// stmtPhrase says what a statement mode does instead of its reference, ref: a prepare
// per query on MySQL, a driver's default elsewhere (pgx's cache_statement).
func stmtPhrase(stmt, ref string, long bool) string {
	if ref != questions.RefStmt {
		return stmt + " vs " + ref
	}
	switch {
	case stmt == "interpolate" && long:
		return "interpolation against a prepare per query"
	case stmt == "prepared" && long:
		return "a statement prepared once and reused"
	case stmt == "interpolate":
		return "interpolate vs prepare"
	case stmt == "prepared":
		return "prepared once vs prepare"
	}
	return stmt + " vs " + questions.RefStmt
}

// connAnswer answers question 3: a connection per request against a pooled one, at
// each group's most common setting, and each server against the language's first.
func connAnswer(all []finding, langs map[string]*results.Lang) answer {
	conn, server := byQuestion(all, questions.Conn), byQuestion(all, questions.Server)
	a := answer{ID: "q-conn", Title: "3. What connections and the runtime cost", Evidence: evidence(append(slices.Clone(conn), server...)),
		Chart: "QPS ÷ the pooled connection's, or php-fpm's"}
	conn = atDefaultServer(conn, langs) // the sentence's; the section has every server
	// Each layer as shipped leads: where a team starts; the rest is a connection per
	// request against a kept one. A run before the shipped question had the pool as
	// shipped against the kept pool alone (conn=shipped).
	shipped := atDefaultServer(byQuestion(all, questions.Shipped), langs)
	if len(shipped) == 0 {
		shipped = slices.DeleteFunc(slices.Clone(conn), func(f finding) bool { return f.Other.Conn != shippedConn })
	}
	// A variant as shipped that is also a connection per request (PDO) is said once.
	conn = slices.DeleteFunc(conn, func(f finding) bool {
		return f.Other.Conn == shippedConn || slices.ContainsFunc(shipped, func(s finding) bool { return s.Other.Key == f.Other.Key })
	})
	clauses, chunks := shippedClauses(shipped, langs), []string(nil)
	for _, lang := range langsOf(conn) {
		var lists []string
		for _, g := range groupsOf(conn) {
			if g.lang != lang {
				continue
			}
			shown := firstBaseline(atSetting(inGroup(conn, g), mostCommon(inGroup(conn, g))), 3)
			a.Groups = append(a.Groups, answerGroup{Heading: groupName(g, conn) + ": per-request vs persistent at " + shown[0].Other.Stmt, Findings: shown})
			list := strings.Join(items(shown), ", ") + " at " + shown[0].Other.Stmt
			if st := modeOf(langs, lang, "persistent"); st != nil {
				lists = append(lists, strings.Join(items(shown), ", ")+onDB(conn, g.db))
				continue
			}
			chunk := groupName(g, conn) + " " + list
			if count, names := commandChange(shown[0].Base, shown[0].Other); count != "" {
				chunk += fmt.Sprintf(" (%s: %s)", commandsTerm(count), names)
			}
			chunks = append(chunks, chunk)
		}
		if st := modeOf(langs, lang, "persistent"); st != nil && len(lists) > 0 {
			keeps := "a connection per request keeps"
			if len(clauses) > 0 {
				keeps = "per request"
			}
			// The commands a new connection adds are in the section: the first screen is
			// short. Where the shipped clause named the setting (toSet: a layer as shipped
			// against a kept connection), it is not said again.
			set := fmt.Sprintf(" %s (default: %s):", st.Set, st.Default)
			if slices.ContainsFunc(shipped, func(f finding) bool {
				return f.Other.Lang == lang && f.Base.Conn == "persistent" && f.Other.Conn != f.Base.Conn
			}) {
				set = ""
			}
			clauses = append(clauses, fmt.Sprintf("%s:%s %s %s", langName(lang), set, keeps, strings.Join(lists, ", ")))
		}
	}
	if len(chunks) > 0 {
		clauses = append(clauses, "a new connection per request instead of a pooled one keeps, of the throughput: "+strings.Join(chunks, "; "))
	}
	type langDB struct{ lang, db string }
	for _, ld := range distinct(server, func(f finding) langDB { return langDB{f.Other.Lang, f.Other.Database} }) {
		of := slices.DeleteFunc(slices.Clone(server), func(f finding) bool { return langDB{f.Other.Lang, f.Other.Database} != ld })
		shown := firstBaseline(of, 1)
		// A server names its language (php-fpm, resident workers): no "PHP" before it.
		phrase := fmt.Sprintf("%s instead of %s", serverName(shown[0].Other.Server), serverName(shown[0].Base.Server)) + onDB(server, ld.db)
		clauses = append(clauses, phrase+": "+strings.Join(items(shown), ", "))
		a.Groups = append(a.Groups, answerGroup{Heading: phrase, Findings: shown})
	}
	a.Sentence = sentenceOr(clauses, "No per-request variant was measured against a persistent one, and no second server against the first.")
	return a
}

// shippedConn is the connection mode of a pool as its library ships it (Go's
// go/config/config.go, Shipped).
const shippedConn = "shipped"

// shippedClauses say what each layer as its library ships it keeps of the throughput
// at its language's tuned modes, grouped by what a team would set to get them, and
// what the group dials per request where it keeps connections (results.Variant.Churns):
// "As shipped, of the throughput with the settings named — Go (`interpolateParams=true`,
// `SetMaxIdleConns` = `SetMaxOpenConns`): database/sql 0.34× [0.33, 0.35], GORM 0.37×
// [0.36, 0.38], dialling 0.58 to 0.60 per request: pools that churn; PHP (…): …". A
// run before the shipped question gives the pool as shipped against the kept pool,
// and says so the same way.
func shippedClauses(fs []finding, langs map[string]*results.Lang) []string {
	type group struct{ lang, set string }
	var order []group
	members := map[group][]finding{}
	for _, f := range fs {
		g := group{f.Other.Lang, toSet(f, langs)}
		if members[g] == nil {
			order = append(order, g)
		}
		members[g] = append(members[g], f)
	}
	var chunks []string
	for _, g := range order {
		head := langName(g.lang)
		if g.set != "" {
			head += " (" + g.set + ")"
		}
		var parts []string
		for _, f := range members[g] {
			parts = append(parts, shortLibrary(f.Other)+" "+ratioCI(f.QPS))
		}
		chunks = append(chunks, head+": "+strings.Join(parts, ", ")+dialsOf(members[g]))
	}
	if len(chunks) == 0 {
		return nil
	}
	return []string{"As shipped, of the throughput with the settings named — " + strings.Join(chunks, "; ")}
}

// dialsOf is what the pools as shipped of fs dial per request, where they keep their
// connections: ", dialling 0.58 to 0.60 per request: pools that churn"; "" where none
// was counted (a connection per request dials once by design).
func dialsOf(fs []finding) string {
	var dials []float64
	churning := 0
	for _, f := range fs {
		if n, churns, ok := f.Other.Churns(); ok && f.Other.Conn != "per-request" {
			dials = append(dials, n)
			if churns {
				churning++
			}
		}
	}
	switch {
	case len(dials) == 0:
		return ""
	case churning == len(dials) && churning > 1:
		return fmt.Sprintf(", dialling %s per request: pools that churn", numberRange(dials))
	case churning == 1 && len(dials) == 1:
		return fmt.Sprintf(", dialling %s per request: a pool that churns", numberRange(dials))
	case churning > 0:
		return fmt.Sprintf(", dialling %s per request: %d of %d pools churn", numberRange(dials), churning, len(dials))
	}
	return fmt.Sprintf(", dialling %s per request", numberRange(dials))
}

// toSet is what a team sets to move from f's Other (as shipped) to its Base (tuned), in
// the language's terms: "`interpolateParams=true`, `SetMaxIdleConns` =
// `SetMaxOpenConns`"; "" where the matrix does not say.
func toSet(f finding, langs map[string]*results.Lang) string {
	var sets []string
	for _, m := range [][2]string{{f.Base.Stmt, f.Other.Stmt}, {f.Base.Conn, f.Other.Conn}} {
		if st := modeOf(langs, f.Base.Lang, m[0]); m[0] != m[1] && st != nil {
			sets = append(sets, strings.TrimPrefix(st.Set, "set "))
		}
	}
	return strings.Join(sets, ", ")
}

// langsOf lists the languages fs measured, in order of appearance.
func langsOf(fs []finding) []string {
	return distinct(fs, func(f finding) string { return f.Other.Lang })
}
