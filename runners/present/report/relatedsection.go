package report

import (
	"fmt"
	"slices"
	"strings"

	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// The section "Related rows" (the orders ops, preset related): every form each layer's
// library offers (one JOIN, eager loading, lazy loading) against its language's raw
// driver's JOIN of the same request, the statements each sends (N+1 named where a page
// costs 1 + N), and answer 1's advice: each layer's eager form against its own lazy one.

// relatedID is the section's anchor.
const relatedID = "q-related"

// relatedSection is the section and the sentence answer 1 gains; ok is false when the
// run measured no orders op.
func (d *data) relatedSection(fs []finding) (s section, pointer string, ok bool) {
	if !slices.ContainsFunc(d.run.Variants, func(v *results.Variant) bool { return v.Fetch != "" }) {
		return section{}, "", false
	}
	s = section{ID: relatedID, Title: "Related rows"}
	s.Intro = []string{"A user with their latest orders, and a page of users with theirs, read in each form the layer's library offers: " +
		"one JOIN; eager loading, the users and then all their orders in one more statement; lazy loading, a statement per user (1 + N). " +
		"Each form against the raw driver's JOIN of the same request, measured in the run's " + pairsOf(d.run.Settings.Pairing) +
		": the ratio of QPS and of app CPU per request with its " + term("95% interval", "wilcoxon-interval") +
		". Statements are counted on the wire (Query and Execute), one request at a time; every response was checked against the fixtures."}
	for _, g := range relatedGroups(d.run.Variants) {
		s.Grids = append(s.Grids, d.relatedGrid(fs, g))
	}
	return s, d.relatedPointer(fs), true
}

// relatedGroups are the groups (language, server, database) of the run's orders ops.
func relatedGroups(vs []*results.Variant) []group {
	var out []group
	for _, v := range vs {
		if g := groupOf(v); v.Fetch != "" && !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// relatedGrid is a row per layer and form, a column per request (a user's orders, a
// page's).
func (d *data) relatedGrid(fs []finding, g group) grid {
	var cols []*results.Variant // one variant per request, its first
	var rows []string
	cells := map[[2]string]*results.Variant{}
	// The raw driver's rows first: the reference.
	vs := slices.Clone(d.run.Variants)
	slices.SortStableFunc(vs, func(a, b *results.Variant) int {
		return boolRank(a.Layer != d.run.BaselineOf(a)) - boolRank(b.Layer != d.run.BaselineOf(b))
	})
	for _, v := range vs {
		if v.Fetch == "" || groupOf(v) != g {
			continue
		}
		if !slices.ContainsFunc(cols, func(c *results.Variant) bool { return sameRequest(c, v) }) {
			cols = append(cols, v)
		}
		row := layerName(v) + ", " + v.Fetch
		if !slices.Contains(rows, row) {
			rows = append(rows, row)
		}
		cells[[2]string{row, requestTitle(v)}] = v
	}
	grid := grid{ID: "t-related-" + g.lang + "-" + g.server + "-" + g.db, Head: []string{"layer, form"},
		Caption: fmt.Sprintf("%s: each form ÷ the raw driver's JOIN of the same request, at %s", langName(g.lang)+onDB(fs, g.db), setting(cols[0]))}
	for _, c := range cols {
		grid.Head = append(grid.Head, requestTitle(c))
	}
	fetch := byQuestion(fs, questions.Fetch)
	for _, row := range rows {
		r := []cell{textCell(row)}
		for _, c := range cols {
			v := cells[[2]string{row, requestTitle(c)}]
			if v == nil {
				r = append(r, textCell("–"))
				continue
			}
			r = append(r, textCell(d.relatedLines(v, fetch)...))
		}
		grid.Rows = append(grid.Rows, r)
	}
	grid.Notes = []string{"Each cell: QPS and app CPU per request ÷ the raw driver's JOIN; statements (with what the layer sends on every request: Laravel's three under php-fpm) and bytes from the database per request; N+1 where a page costs a statement per user. " + markLegend(d.run.Settings.Pairing)}
	return grid
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// relatedLines are a variant's figures in its cell.
func (d *data) relatedLines(v *results.Variant, fetch []finding) []string {
	if v.InvalidReason != "" {
		return []string{"fails: " + userError(v.InvalidReason)}
	}
	var out []string
	if i := slices.IndexFunc(fetch, func(f finding) bool { return f.Other == v }); i >= 0 {
		f := fetch[i]
		out = append(out, "QPS "+ratioCI(f.QPS)+" "+marks[f.QPS.Verdict])
		if f.CPU.OK {
			out = append(out, "CPU "+ratioCI(f.CPU)+" "+marks[f.CPU.Verdict])
		}
	} else if v.Fetch == "join" {
		out = append(out, "the reference")
	}
	if n, ok := statements(v); ok {
		out = append(out, "statements "+units.Number(n)+d.nPlusOne(v))
	}
	if v.Roundtrips != nil && v.Roundtrips.BytesFromDB > 0 {
		out = append(out, "from the database "+units.DecimalBytes(v.Roundtrips.BytesFromDB))
	}
	return out
}

// statements are the statements v sent per request, counted on the wire: MySQL's
// Query and Execute commands, PostgreSQL's Query and Execute messages.
func statements(v *results.Variant) (float64, bool) {
	if v.Roundtrips == nil {
		return 0, false
	}
	per := v.Roundtrips.PerCommand()
	return per["Query"] + per["Execute"], true
}

// nPlusOne is " = 1 + 20 (N+1)" when v, a lazy form of a page, sends a statement per
// user beyond the one that reads the users, the layer's own statements per request
// (Laravel's, under php-fpm) set aside; "" otherwise. The layer's own are what any of
// its variants sends beyond its form's (formStatements).
func (d *data) nPlusOne(v *results.Variant) string {
	if v.Fetch != "lazy" || v.Rows == 0 {
		return ""
	}
	n, ok := statements(v)
	for _, w := range d.run.Variants {
		m, okW := statements(w)
		if w == v || w.Fetch == "" || withoutOp(w) != withoutOp(v) || !ok || !okW {
			continue
		}
		if own := m - formStatements(w); n-own == formStatements(v) {
			return fmt.Sprintf(" = 1 + %d (N+1)", v.Rows)
		}
		return ""
	}
	return ""
}

// formStatements are the statements a form sends by its definition: one for a join,
// two for eager loading, one and one per user for lazy loading.
func formStatements(v *results.Variant) float64 {
	switch v.Fetch {
	case "join":
		return 1
	case "eager":
		return 2
	}
	return 1 + float64(max(v.Rows, 1))
}

// sameRequest says whether two orders variants ask for the same rows (a user's orders,
// or a page of the same length with as many per user), in whatever form.
func sameRequest(a, b *results.Variant) bool { return a.Orders == b.Orders && a.Rows == b.Rows }

// requestTitle heads a request's column: "a user's 10 orders", "20 users' 3 orders".
func requestTitle(v *results.Variant) string {
	if v.Rows > 0 {
		return fmt.Sprintf("%d users' latest %d orders", v.Rows, v.Orders)
	}
	return fmt.Sprintf("a user's latest %d orders", v.Orders)
}

// relatedPointer is answer 1's word on related rows, at a page of users, for the ORMs:
// each one's eager or joined form against its own lazy loading, and each one's best
// form against the raw driver's JOIN; "" when the run compared none.
func (d *data) relatedPointer(fs []finding) string {
	orm := func(f finding) bool { return f.Other.Kind != "orm" || f.Other.Rows == 0 }
	var advice, against []string
	page := 0
	for _, f := range bestPerLayer(slices.DeleteFunc(byQuestion(fs, questions.Lazy), orm)) {
		from, _ := statements(f.Base)
		to, _ := statements(f.Other)
		page = f.Other.Rows
		advice = append(advice, fmt.Sprintf("%s: %s instead of %s, %s → %s statements, QPS %s",
			shortLibrary(f.Other)+d.whereName(f.Other), apiOf(f.Other), apiOf(f.Base), units.Number(from), units.Number(to), ratioCI(f.QPS)))
	}
	for _, f := range bestPerLayer(slices.DeleteFunc(byQuestion(fs, questions.Fetch), orm)) {
		page = f.Other.Rows
		only := ""
		if f.Other.Fetch == "lazy" {
			only = " (its only form: 1 + N)"
		}
		against = append(against, fmt.Sprintf("%s %s%s %s", shortLibrary(f.Other)+d.whereName(f.Other), apiOf(f.Other), only, ratioCI(f.QPS)))
	}
	if len(advice)+len(against) == 0 {
		return ""
	}
	out := fmt.Sprintf("Related rows (below), a page of %d users with their orders:", page)
	if len(advice) > 0 {
		out += " " + strings.Join(advice, "; ") + "."
	}
	if len(against) > 0 {
		out += " Each ORM's best against the raw driver's JOIN: " + strings.Join(against, ", ") + "."
	}
	return out
}

// bestPerLayer keeps, per variant but its op, the finding of highest QPS ratio, in
// order of appearance; a lazy form only where its layer has no other.
func bestPerLayer(fs []finding) []finding {
	var out []finding
	for _, f := range fs {
		if !f.QPS.OK {
			continue
		}
		i := slices.IndexFunc(out, func(g finding) bool { return withoutOp(g.Other) == withoutOp(f.Other) })
		switch {
		case i < 0:
			out = append(out, f)
		case (out[i].Other.Fetch == "lazy") != (f.Other.Fetch == "lazy"):
			if out[i].Other.Fetch == "lazy" {
				out[i] = f
			}
		case f.QPS.Value > out[i].QPS.Value:
			out[i] = f
		}
	}
	return out
}

// apiOf is the library call of v's form (matrix.yaml's fetch api), else the form in
// words: "one JOIN", "eager loading", "a query per user".
func apiOf(v *results.Variant) string {
	if v.FetchAPI != "" {
		return v.FetchAPI
	}
	return map[string]string{"join": "one JOIN", "eager": "eager loading", "lazy": "a query per user"}[v.Fetch]
}
