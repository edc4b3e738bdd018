package report

import (
	"dbbench/runners/present/report/chart"
)

// Every chart colours a variant by its statement mode, and draws the other connection
// mode hollow (bars, dots) or dashed (lines), so a stmt or conn value looks the same in
// every chart. The hues are Okabe and Ito's, which colour-blind readers tell apart.
var stmtColors = map[string]string{
	"prepare":     "#0072B2",
	"prepared":    "#CC79A7",
	"interpolate": "#E69F00",
	"none":        "#7f7f7f",
}

// otherColor is the colour of a stmt value the palette does not know.
const otherColor = "#009E73"

func stmtColor(stmt string) string {
	if c, ok := stmtColors[stmt]; ok {
		return c
	}
	return otherColor
}

// hollow says whether conn is drawn hollow or dashed: every mode but the pooled one.
func hollow(conn string) bool { return conn != "persistent" && conn != "none" }

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
		out = append(out, chart.LegendItem{Name: name, Color: stmtColor(s), Line: line})
	}
	for _, c := range conns {
		if c == "none" {
			continue
		}
		out = append(out, chart.LegendItem{Name: "conn=" + c, Color: chart.Muted, Hollow: hollow(c) && !line, Dash: hollow(c) && line, Line: line})
	}
	return out
}
