package report

import (
	"fmt"
	"strconv"
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

// componentColors colour a profile's components in the order of the first profile.
var componentColors = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// pale mixes a #rrggbb colour three parts in four with white: the fill of a hollow bar.
func pale(c string) string {
	if len(c) != 7 || c[0] != '#' {
		return c
	}
	out := "#"
	for i := 1; i < 7; i += 2 {
		v, err := strconv.ParseUint(c[i:i+2], 16, 8)
		if err != nil {
			return c
		}
		out += fmt.Sprintf("%02x", 255-(255-v)/4)
	}
	return out
}

// legendItem is one entry of a figure's legend (drawn in HTML, outside the data).
type legendItem struct {
	Name   string
	Color  string
	Hollow bool // a ring or a pale box
	Dash   bool // a dashed line
	Line   bool // a line rather than a box
}

// stmtLegend explains the stmt colours and the conn drawing of the variants shown.
func stmtLegend(stmts, conns []string, line bool) []legendItem {
	var out []legendItem
	for _, s := range stmts {
		name := "stmt=" + s
		if s == "none" {
			name = "no database (hello)"
		}
		out = append(out, legendItem{Name: name, Color: stmtColor(s), Line: line})
	}
	for _, c := range conns {
		if c == "none" {
			continue
		}
		out = append(out, legendItem{Name: "conn=" + c, Color: muted, Hollow: hollow(c) && !line, Dash: hollow(c) && line, Line: line})
	}
	return out
}
