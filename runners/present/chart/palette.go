package chart

import (
	"fmt"
	"strconv"
)

// Colors are distinct hues for series that have no colour of their own (a profile's
// components, a sweep's series), taken in order.
var Colors = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
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

// LegendItem is one entry of a figure's legend. Legends are drawn in HTML, outside the
// data, so that a legend never hides a mark; Swatch draws the entry's mark.
type LegendItem struct {
	Name   string
	Color  string
	Hollow bool // a ring or a pale box
	Dash   bool // a dashed line
	Line   bool // a line rather than a box
}

// Swatch draws a legend entry's mark as a small SVG: a box, a ring or a line, solid or
// dashed, as the charts draw the series it names.
func Swatch(l LegendItem) string {
	c := newCanvas(22, 12, "")
	switch {
	case l.Line:
		dash := ""
		if l.Dash {
			dash = "5 3"
		}
		c.line(1, 6, 21, 6, l.Color, 2.5, dash)
	case l.Hollow:
		c.rect(2, 1, 18, 10, pale(l.Color), l.Color, "")
	default:
		c.rect(2, 1, 18, 10, l.Color, "", "")
	}
	return c.String()
}

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

// StmtColor is the colour of a statement mode in every chart.
func StmtColor(stmt string) string {
	if c, ok := stmtColors[stmt]; ok {
		return c
	}
	return otherColor
}

// Hollow says whether conn is drawn hollow or dashed: every mode but the pooled one.
func Hollow(conn string) bool { return conn != "persistent" && conn != "none" }
