package chart

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Charts are drawn by hand as SVG, not by a plotting library, so that the report can
// measure every label before placing it (nothing is cut off, nothing overlaps), keep
// legends outside the data, and give each mark a <title>, which a browser shows on
// hover without any script.

// fontFamily is measured with DejaVu Sans's widths (fontwidth.go); the faces after it
// are as wide or narrower, so measured text never runs past its room.
const fontFamily = "DejaVu Sans, Bitstream Vera Sans, Verdana, sans-serif"

// Text sizes of the charts, in px.
const (
	fontSize  = 12.0
	smallSize = 11.0
	titleSize = 13.0
)

// textWidth is the width of s in px at size, in DejaVu Sans (bold or not). A rune the
// table lacks counts as a wide letter.
func textWidth(s string, size float64, bold bool) float64 {
	table := dejavuWidths
	if bold {
		table = dejavuBoldWidths
	}
	var units float64
	for _, r := range s {
		w, ok := table[r]
		if !ok {
			w = 2048
		}
		units += float64(w)
	}
	return units / 2048 * size
}

// wrap breaks s into lines no wider than width at size, at spaces; a word wider than
// width stands on its own line, shortened with an ellipsis.
func wrap(s string, size, width float64, bold bool) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		next := word
		if line != "" {
			next = line + " " + word
		}
		if textWidth(next, size, bold) <= width {
			line = next
			continue
		}
		if line != "" {
			lines = append(lines, line)
		}
		line = fit(word, size, width, bold)
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// fit shortens s with an ellipsis until it is no wider than width.
func fit(s string, size, width float64, bold bool) string {
	if textWidth(s, size, bold) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && textWidth(string(r)+"…", size, bold) > width {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// canvas accumulates one SVG element.
type canvas struct {
	b    strings.Builder
	w, h float64
}

func newCanvas(w, h float64, label string) *canvas {
	c := &canvas{w: w, h: h}
	fmt.Fprintf(&c.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img" aria-label="%s" font-family="%s" font-size="%.0f">`,
		w, h, w, h, esc(label), fontFamily, fontSize)
	return c
}

func (c *canvas) String() string { return c.b.String() + "</svg>" }

func esc(s string) string { return html.EscapeString(s) }

// tip is a <title> child: the browser shows it on hover.
func tip(s string) string {
	if s == "" {
		return ""
	}
	return "<title>" + esc(s) + "</title>"
}

// text draws s at (x, y) (the baseline), anchored start, middle or end.
func (c *canvas) text(x, y float64, anchor string, size float64, bold bool, fill, s string) {
	weight := ""
	if bold {
		weight = ` font-weight="bold"`
	}
	fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" text-anchor="%s" font-size="%.0f"%s fill="%s">%s</text>`,
		x, y, anchor, size, weight, fill, esc(s))
}

// vtext draws s rotated a quarter turn anticlockwise, centred on (x, y).
func (c *canvas) vtext(x, y float64, size float64, fill, s string) {
	fmt.Fprintf(&c.b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="%.0f" fill="%s" transform="rotate(-90 %.1f %.1f)">%s</text>`,
		x, y, size, fill, x, y, esc(s))
}

func (c *canvas) line(x1, y1, x2, y2 float64, stroke string, width float64, dash string) {
	d := ""
	if dash != "" {
		d = ` stroke-dasharray="` + dash + `"`
	}
	fmt.Fprintf(&c.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.1f"%s/>`, x1, y1, x2, y2, stroke, width, d)
}

// rect draws a box with a hover text; an empty stroke draws none.
func (c *canvas) rect(x, y, w, h float64, fill, stroke, title string) {
	s := ""
	if stroke != "" {
		s = fmt.Sprintf(` stroke="%s" stroke-width="1.5"`, stroke)
	}
	fmt.Fprintf(&c.b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"%s>%s</rect>`, x, y, math.Max(w, 0), h, fill, s, tip(title))
}

func (c *canvas) circle(x, y, r float64, fill, stroke, title string) {
	fmt.Fprintf(&c.b, `<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" stroke="%s" stroke-width="1.5">%s</circle>`, x, y, r, fill, stroke, tip(title))
}

// polyline draws a series; title is its hover text.
func (c *canvas) polyline(xs, ys []float64, stroke string, width float64, dash, title string) {
	var pts []string
	for i := range xs {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", xs[i], ys[i]))
	}
	d := ""
	if dash != "" {
		d = ` stroke-dasharray="` + dash + `"`
	}
	fmt.Fprintf(&c.b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="%.1f"%s>%s</polyline>`,
		strings.Join(pts, " "), stroke, width, d, tip(title))
}

// group opens a <g> whose hover text covers its children; end closes it.
func (c *canvas) group(title string) { c.b.WriteString("<g>" + tip(title)) }
func (c *canvas) end()               { c.b.WriteString("</g>") }
