package report

import (
	"fmt"
	"slices"

	"dbbench/runners/judge/questions"
	"dbbench/runners/present/chart"
	"dbbench/runners/present/doc"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// The questions' charts: the small chart beside each answer and each question's
// figure of QPS and app CPU ratios. The colours are colors.go's.

// Panel widths in px: an answer's chart, half the page, a third of it.
const (
	answerWidth = 440.0
	halfPage    = doc.HalfPage
	thirdWidth  = 345.0
)

// answerPanel is the small chart beside an answer: each named finding's QPS ratio
// with its interval, under its group's heading.
func answerPanel(a answer) chart.Panel {
	var rows []chart.ForestRow
	for _, g := range a.Groups {
		rows = append(rows, chart.ForestRow{Label: g.Heading, Head: true})
		for _, f := range g.Findings {
			rows = append(rows, findingRow(f, shortLibrary(f.Other), f.QPS, "QPS"))
		}
	}
	return chart.Forest{Title: a.Chart, XLabel: "QPS ratio, 95% interval (1 = no difference)", Width: answerWidth, Rows: rows}
}

// findingRow is a finding as a forest row, coloured by its other side's stmt and
// hollow for a connection per request.
func findingRow(f finding, label string, e estimate, what string) chart.ForestRow {
	r := chart.ForestRow{Label: label, Est: e.Value, Value: units.Ratio(e.Value), Color: chart.StmtColor(f.Other.Stmt), Hollow: chart.Hollow(f.Other.Conn),
		Tip: fmt.Sprintf("%s vs %s: %s %s, %s, %s", label, sideName(f.Base, f.Question), what, ratioCI(e), e.Verdict, pairsText(f))}
	if e.HasInterval() {
		r.Lo, r.Hi = e.Lo, e.Hi
	}
	return r
}

// comparisonFigure draws a question's findings per language: QPS ratios in one panel,
// app CPU ratios in the next, grouped under the setting or layer they share.
func comparisonFigure(fs []finding, q string) (figure, bool) {
	if len(fs) == 0 {
		return figure{}, false
	}
	f := figure{ID: "fig-" + q, Title: figureTitles[q], Legend: legendOf(fs, false)}
	for _, lang := range langsOf(fs) {
		of := slices.DeleteFunc(slices.Clone(fs), func(f finding) bool { return f.Other.Lang != lang })
		servers := len(groupsOf(of)) > 1
		var heads []string
		for _, x := range of {
			if h, _ := splitLabel(x, q, servers); !slices.Contains(heads, h) {
				heads = append(heads, h)
			}
		}
		slices.SortStableFunc(of, func(a, b finding) int {
			ha, _ := splitLabel(a, q, servers)
			hb, _ := splitLabel(b, q, servers)
			return slices.Index(heads, ha) - slices.Index(heads, hb)
		})
		for _, m := range []struct {
			name string
			pick func(finding) estimate
		}{{"QPS", func(f finding) estimate { return f.QPS }}, {"app CPU per request", func(f finding) estimate { return f.CPU }}} {
			var rows []chart.ForestRow
			last := ""
			for _, x := range of {
				head, label := splitLabel(x, q, servers)
				if head != last {
					rows = append(rows, chart.ForestRow{Label: head, Head: true})
					last = head
				}
				if e := m.pick(x); e.OK {
					rows = append(rows, findingRow(x, label, e, m.name))
				}
			}
			f.Panels = append(f.Panels, chart.Forest{Title: fmt.Sprintf("%s: %s ratio", langName(lang), m.name),
				XLabel: m.name + " ratio, 95% interval", Width: halfPage, Rows: rows})
		}
	}
	return f, true
}

var figureTitles = map[string]string{
	questions.Layer:  "Each layer against the raw driver: ratios with their 95% intervals",
	questions.Stmt:   "Each statement mode against prepare: ratios with their 95% intervals",
	questions.Conn:   "A connection per request against a pooled one: ratios with their 95% intervals",
	questions.Server: "Each server against the language's first: ratios with their 95% intervals",
}

// splitLabel is a finding's group heading and row label in a question's chart: layer
// findings group by setting, the others by layer; the server is named when the
// language has several.
func splitLabel(f finding, q string, servers bool) (head, label string) {
	v := f.Other
	at := ""
	if servers {
		at = serverName(v.Server) + " · "
	}
	switch q {
	case questions.Layer:
		return at + v.Stmt + " · " + v.Conn, shortLibrary(v)
	case questions.Stmt:
		return at + layerName(v), v.Stmt + " · " + v.Conn
	case questions.Conn:
		return at + layerName(v), v.Conn + " · " + v.Stmt
	case questions.DB:
		return fmt.Sprintf("%s%s · %s · %s", at, layerName(v), v.Stmt, v.Conn), dbName(v)
	}
	return fmt.Sprintf("%s · %s · %s", layerName(v), v.Stmt, v.Conn), serverName(v.Server)
}

// legendOf explains the colours of the findings' other sides.
func legendOf(fs []finding, line bool) []chart.LegendItem {
	var stmts, conns []string
	for _, f := range fs {
		if !slices.Contains(stmts, f.Other.Stmt) {
			stmts = append(stmts, f.Other.Stmt)
		}
		if !slices.Contains(conns, f.Other.Conn) {
			conns = append(conns, f.Other.Conn)
		}
	}
	return stmtLegend(stmts, conns, line)
}

// variantsLegend explains the colours of variants.
func variantsLegend(vs []*results.Variant, line bool) []chart.LegendItem {
	var stmts, conns []string
	for _, v := range vs {
		if !slices.Contains(stmts, v.Stmt) {
			stmts = append(stmts, v.Stmt)
		}
		if !slices.Contains(conns, v.Conn) {
			conns = append(conns, v.Conn)
		}
	}
	return stmtLegend(stmts, conns, line)
}
