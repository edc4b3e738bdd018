package chart

import (
	"math"
)

// Lines draws series of y against x, with markers that show their values on
// hover. Its legend is the figure's (in HTML, outside the data).
type Lines struct {
	Title          string
	XLabel, YLabel string
	Width, Height  float64
	X, Y           Scale // only Lo, Hi, Log and Labels are read
	Series         []Series
}

// Series is one line of a Lines panel.
type Series struct {
	Name   string
	X, Y   []float64
	Color  string
	Dash   bool
	Thin   bool     // a reference line, drawn thinner
	Tips   []string // hover text of each point; "" draws no marker there
	Marker bool     // mark every point; otherwise only where Tips has text
}

// SVG draws the grid, the axes and their titles, then the series over them.
func (p Lines) SVG() string {
	title := wrap(p.Title, titleSize, p.Width-8, true)
	top := 6 + float64(len(title))*(titleSize+4) + 6
	x, y := p.X, p.Y
	ticksY := y.ticks(5)
	tickW := 0.0
	for _, t := range ticksY {
		tickW = math.Max(tickW, textWidth(t.Label, smallSize, false))
	}
	x.p0, x.p1 = 18+tickW+8, p.Width-12
	y.p0, y.p1 = p.Height-40, top
	c := newCanvas(p.Width, p.Height, p.Title)
	for i, s := range title {
		c.text(4, 6+titleSize+float64(i)*(titleSize+4), "start", titleSize, true, ink, s)
	}
	for _, t := range ticksY {
		py := y.pos(t.At)
		c.line(x.p0, py, x.p1, py, gridColor, 1, "")
		c.text(x.p0-5, py+4, "end", smallSize, false, Muted, t.Label)
	}
	last := math.Inf(-1)
	for _, t := range x.ticks(int((x.p1 - x.p0) / 70)) {
		px := x.pos(t.At)
		c.line(px, y.p1, px, y.p0, gridColor, 1, "")
		w := textWidth(t.Label, smallSize, false)
		left, anchor := px-w/2, "middle"
		if left < x.p0 {
			left, anchor = px, "start" // clear of the y axis's labels in the corner
		}
		if left < last+6 || left+w > p.Width-2 {
			continue
		}
		c.text(px, y.p0+14, anchor, smallSize, false, Muted, t.Label)
		last = left + w
	}
	c.line(x.p0, y.p0, x.p1, y.p0, Muted, 1, "")
	c.line(x.p0, y.p0, x.p0, y.p1, Muted, 1, "")
	centred(c, (x.p0+x.p1)/2, p.Height-8, p.Width, fit(p.XLabel, fontSize, p.Width-8, false))
	c.vtext(12, (y.p0+y.p1)/2, fontSize, ink, fit(p.YLabel, fontSize, y.p0-y.p1, false))
	for _, s := range p.Series {
		p.drawSeries(c, x, y, s)
	}
	return c.String()
}

func (p Lines) drawSeries(c *canvas, x, y Scale, s Series) {
	var xs, ys []float64
	for i := range s.X {
		xs, ys = append(xs, x.pos(s.X[i])), append(ys, y.pos(s.Y[i]))
	}
	width, dash := 2.0, ""
	if s.Thin {
		width = 1.2
	}
	if s.Dash {
		dash = "6 3"
	}
	c.group(s.Name)
	c.polyline(xs, ys, s.Color, width, dash, "")
	for i := range xs {
		t := ""
		if i < len(s.Tips) {
			t = s.Tips[i]
		}
		if t == "" && !s.Marker {
			continue
		}
		fill := s.Color
		if s.Dash {
			fill = "#fff"
		}
		c.circle(xs[i], ys[i], 3, fill, s.Color, t)
	}
	c.end()
}

// Bounds returns the range of the series' values on one axis (x or y), padded for a
// log or a linear scale from zero.
func Bounds(ss []Series, pick func(Series) []float64, log bool) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, v := range pick(s) {
			if log && v <= 0 {
				continue
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		return 0, 1
	}
	if log {
		return logBounds(lo, hi)
	}
	_, top := niceBounds(0, hi, 5)
	return 0, top
}
