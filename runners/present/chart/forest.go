package chart

import (
	"math"
)

// Forest draws ratios with their 95% intervals, one row each, against a dashed
// line at 1 (no difference): the chart of a paired comparison.
type Forest struct {
	Title  string
	XLabel string
	Width  float64
	Rows   []ForestRow
}

// ForestRow is one ratio, or a group heading when Head is set.
type ForestRow struct {
	Label       string
	Head        bool
	Est, Lo, Hi float64 // Lo = Hi = 0: no interval
	Value       string  // written right of the plot: the caller formats its ratios
	Color       string
	Hollow      bool   // drawn as a ring
	Tip         string // hover text
}

// SVG draws the rows, on a linear or a log axis as the ratios' spread asks (ratioBounds).
func (f Forest) SVG() string {
	labels, heads := make([]string, len(f.Rows)), make([]bool, len(f.Rows))
	lo, hi := 1.0, 1.0
	for i, r := range f.Rows {
		labels[i], heads[i] = r.Label, r.Head
		if r.Head {
			continue
		}
		lo, hi = math.Min(lo, r.Est), math.Max(hi, r.Est)
		if r.Lo > 0 && !math.IsInf(r.Hi, 1) {
			lo, hi = math.Min(lo, r.Lo), math.Max(hi, r.Hi)
		}
	}
	l := layoutRows(f.Width, f.Title, labels, heads)
	l.plot.Lo, l.plot.Hi, l.plot.Log = ratioBounds(lo, hi)
	if l.plot.Log {
		l.plot.Labels = ratioTicks
	}
	c := newCanvas(f.Width, l.height, f.Title)
	l.drawFrame(c, f.XLabel, 1)
	for i, r := range f.Rows {
		if r.Head {
			continue
		}
		y := l.rowY[i]
		c.group(r.Tip)
		if r.Lo > 0 && !math.IsInf(r.Hi, 1) {
			c.line(l.plot.pos(r.Lo), y, l.plot.pos(r.Hi), y, r.Color, 2, "")
		}
		fill := r.Color
		if r.Hollow {
			fill = "#fff"
		}
		c.circle(l.plot.pos(r.Est), y, 4.5, fill, r.Color, "")
		c.text(f.Width-4, y+4, "end", fontSize, false, ink, r.Value)
		c.end()
	}
	return c.String()
}

// ratioTicks label a log ratio axis.
var ratioTicks = []Tick{{0.05, "0.05"}, {0.1, "0.1"}, {0.2, "0.2"}, {0.3, "0.3"}, {0.5, "0.5"}, {0.7, "0.7"},
	{1, "1"}, {1.5, "1.5"}, {2, "2"}, {3, "3"}, {5, "5"}, {10, "10"}, {20, "20"}}

// ratioBounds pads [lo, hi] a little and rounds it: a linear axis when the ratios stay
// within a factor of 2.5, else a log axis from one labelled ratio to another.
func ratioBounds(lo, hi float64) (float64, float64, bool) {
	if hi/lo > 2.5 {
		a, b := ratioTicks[0].At, ratioTicks[len(ratioTicks)-1].At
		for _, t := range ratioTicks {
			if t.At <= lo*0.97 {
				a = t.At
			}
		}
		for i := len(ratioTicks) - 1; i >= 0; i-- {
			if ratioTicks[i].At >= hi*1.03 {
				b = ratioTicks[i].At
			}
		}
		return a, b, true
	}
	pad := (hi - lo) * 0.08
	if pad == 0 {
		pad = 0.05
	}
	a, b := niceBounds(lo-pad, hi+pad, 5)
	return math.Max(a, 0), b, false
}
