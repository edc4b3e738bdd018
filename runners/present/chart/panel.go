// Package chart draws charts as SVG: ratios with their intervals (Forest), stacked
// bars (Bars) and series of points (Lines). It knows nothing of what the numbers
// measure: its caller names the rows, picks the colours, formats the values and writes
// the hover texts.
package chart

import (
	"math"
)

// A Panel is one chart of a figure; a page sets several side by side (small multiples)
// under one caption and one legend, both in HTML outside the data.
type Panel interface {
	SVG() string
}

// Colours of text and axes: Muted is the grey of axes, also fit for a legend entry
// that names a drawing (hollow, dashed) rather than a colour.
const (
	ink       = "#222"
	Muted     = "#666666"
	gridColor = "#e3e3e3"
)

// Row geometry shared by forest and bar panels.
const (
	lineHeight = 14.0 // one line of a wrapped label
	rowPad     = 5.0
	valueCol   = 64.0 // the column of values right of the plot
)

// rowLayout places a title, labelled rows and an x axis under them: labels wrapped
// into at most the left share of the width, each row as tall as its label.
type rowLayout struct {
	width      float64
	title      []string
	labels     [][]string // per row
	heads      []bool     // a row that is a group heading (full width, bold)
	labelW     float64
	top        float64   // y of the first row
	rowY       []float64 // centre of each row
	rowH       []float64
	plot       Scale // x
	axisY      float64
	height     float64
	axisTitleY float64
}

func layoutRows(width float64, title string, labels []string, heads []bool) *rowLayout {
	l := &rowLayout{width: width, heads: heads}
	l.title = wrap(title, titleSize, width-8, true)
	widest := 0.0
	for i, s := range labels {
		if !heads[i] {
			widest = math.Max(widest, textWidth(s, fontSize, false))
		}
	}
	l.labelW = math.Min(widest+10, 0.42*width)
	y := 6 + float64(len(l.title))*(titleSize+4) + 4
	l.top = y
	for i, s := range labels {
		var lines []string
		if heads[i] {
			lines = wrap(s, fontSize, width-8, true)
		} else {
			lines = wrap(s, fontSize, l.labelW-10, false)
		}
		h := float64(len(lines))*lineHeight + rowPad
		l.labels = append(l.labels, lines)
		l.rowY = append(l.rowY, y+h/2)
		l.rowH = append(l.rowH, h)
		y += h
	}
	l.axisY = y + 4
	l.axisTitleY = l.axisY + 16 + 16
	l.height = l.axisTitleY + 8
	l.plot = Scale{p0: l.labelW, p1: width - valueCol}
	return l
}

// drawFrame draws the title, the vertical grid, the x axis and its title, then a
// dashed reference line at ref (none when ref is 0), then the row labels over them.
func (l *rowLayout) drawFrame(c *canvas, xTitle string, ref float64) {
	for i, s := range l.title {
		c.text(4, 6+titleSize+float64(i)*(titleSize+4), "start", titleSize, true, ink, s)
	}
	ticks := l.plot.ticks(int((l.plot.p1 - l.plot.p0) / 70))
	last := math.Inf(-1)
	for _, t := range ticks {
		x := l.plot.pos(t.At)
		c.line(x, l.top, x, l.axisY, gridColor, 1, "")
		w := textWidth(t.Label, smallSize, false)
		if x-w/2 < math.Max(last+6, 2) || x+w/2 > l.width-2 {
			continue // a label that would touch its neighbour is left out; its grid line stays
		}
		c.text(x, l.axisY+14, "middle", smallSize, false, Muted, t.Label)
		last = x + w/2
	}
	c.line(l.plot.p0, l.axisY, l.plot.p1, l.axisY, Muted, 1, "")
	centred(c, (l.plot.p0+l.plot.p1)/2, l.axisTitleY, l.width, fit(xTitle, fontSize, l.width-8, false))
	if ref > 0 {
		x := l.plot.pos(ref)
		c.line(x, l.top, x, l.axisY, Muted, 1, "4 3")
	}
	l.drawLabels(c)
}

// drawLabels writes each row's label, right-aligned before the plot, and each group
// heading on a white ground across the lines under it.
func (l *rowLayout) drawLabels(c *canvas) {
	for i, lines := range l.labels {
		top := l.rowY[i] - float64(len(lines))*lineHeight/2
		for j, s := range lines {
			y := top + float64(j)*lineHeight + lineHeight - 3
			if l.heads[i] {
				c.rect(2, y-lineHeight+3, textWidth(s, fontSize, true)+6, lineHeight, "#fff", "", "")
				c.text(4, y, "start", fontSize, true, ink, s)
			} else {
				c.text(l.labelW-8, y, "end", fontSize, false, ink, s)
			}
		}
	}
}

// centred draws s centred on x but moved inside [0, width] if it would stick out.
func centred(c *canvas, x, y, width float64, s string) {
	w := textWidth(s, fontSize, false)
	x = math.Min(math.Max(x, w/2+4), width-w/2-4)
	c.text(x, y, "middle", fontSize, false, ink, s)
}
