package chart

import (
	"math"
)

// Bars draws horizontal bars from 0, one row each, stacked when a row has several
// segments, with an optional whisker (a 95% interval) and the value beside the plot.
type Bars struct {
	Title  string
	XLabel string
	Width  float64
	Rows   []BarRow
}

// BarRow is one bar, or a group heading when Head is set.
type BarRow struct {
	Label  string
	Head   bool
	Segs   []BarSeg
	Lo, Hi float64 // whisker on the total; 0: none
	Value  string  // written right of the plot
	Tip    string
}

// BarSeg is one segment of a stacked bar.
type BarSeg struct {
	Value  float64
	Color  string
	Hollow bool // outlined and pale
	Tip    string
}

// SVG draws the bars, the value axis from 0 to a round value above every total.
func (b Bars) SVG() string {
	labels, heads := make([]string, len(b.Rows)), make([]bool, len(b.Rows))
	top := 0.0
	for i, r := range b.Rows {
		labels[i], heads[i] = r.Label, r.Head
		total := 0.0
		for _, s := range r.Segs {
			total += s.Value
		}
		top = math.Max(top, math.Max(total, r.Hi))
	}
	l := layoutRows(b.Width, b.Title, labels, heads)
	_, l.plot.Hi = niceBounds(0, top, 5)
	c := newCanvas(b.Width, l.height, b.Title)
	l.drawFrame(c, b.XLabel, 0)
	for i, r := range b.Rows {
		if r.Head {
			continue
		}
		y, h := l.rowY[i], math.Min(l.rowH[i]-rowPad, 14)
		c.group(r.Tip)
		x := 0.0
		for _, s := range r.Segs {
			fill, stroke := s.Color, ""
			if s.Hollow {
				fill, stroke = pale(s.Color), s.Color
			}
			c.rect(l.plot.pos(x), y-h/2, l.plot.pos(x+s.Value)-l.plot.pos(x), h, fill, stroke, s.Tip)
			x += s.Value
		}
		if r.Hi > 0 {
			c.line(l.plot.pos(r.Lo), y, l.plot.pos(r.Hi), y, ink, 1.5, "")
			c.line(l.plot.pos(r.Lo), y-4, l.plot.pos(r.Lo), y+4, ink, 1.5, "")
			c.line(l.plot.pos(r.Hi), y-4, l.plot.pos(r.Hi), y+4, ink, 1.5, "")
		}
		c.text(b.Width-4, y+4, "end", fontSize, false, ink, fit(r.Value, fontSize, valueCol-6, false))
		c.end()
	}
	return c.String()
}
