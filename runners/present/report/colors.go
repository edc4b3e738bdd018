package report

import (
	"dbbench/runners/present/chart"
)

// roleColors are the CPU chart's roles: target, database, load generator.
var roleColors = []string{"#56B4E9", "#D55E00", "#b0b0b0"}

// stmtLegend explains the stmt colours and the conn drawing of the variants shown.
func stmtLegend(stmts, conns []string, line bool) []chart.LegendItem {
	var out []chart.LegendItem
	for _, s := range stmts {
		name := "stmt=" + s
		if s == "none" {
			name = "no database (hello)"
		}
		out = append(out, chart.LegendItem{Name: name, Color: chart.StmtColor(s), Line: line})
	}
	for _, c := range conns {
		if c == "none" {
			continue
		}
		out = append(out, chart.LegendItem{Name: "conn=" + c, Color: chart.Muted, Hollow: chart.Hollow(c) && !line, Dash: chart.Hollow(c) && line, Line: line})
	}
	return out
}
