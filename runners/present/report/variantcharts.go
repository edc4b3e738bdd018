package report

import (
	"fmt"
	"math"
	"slices"

	"dbbench/runners/present/chart"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// The charts of every variant on its own: throughput, CPU per request by role and
// latency by percentile.

// figures are the charts of every variant: throughput, latency spectra, CPU by role.
func (d *data) figures() ([]figure, error) {
	if len(d.valid) == 0 {
		return nil, nil
	}
	spectra, err := d.spectrumFigure()
	if err != nil {
		return nil, err
	}
	return []figure{d.throughputFigure(), spectra, d.cpuFigure()}, nil
}

// servers groups variants by language and server, in the run's order.
func servers(vs []*results.Variant) ([]group, map[group][]*results.Variant) {
	var order []group
	by := map[group][]*results.Variant{}
	for _, v := range vs {
		g := groupOf(v)
		if by[g] == nil {
			order = append(order, g)
		}
		by[g] = append(by[g], v)
	}
	return order, by
}

// layerRows turns variants into bar rows under a heading per layer, each labelled by
// its stmt and conn (the hello variant by what it is).
func layerRows(vs []*results.Variant, row func(*results.Variant) chart.BarRow) []chart.BarRow {
	var out []chart.BarRow
	last := ""
	for _, v := range vs {
		head := layerName(v)
		if !v.DB {
			head = v.Layer + ": no database"
		}
		if head != last {
			out = append(out, chart.BarRow{Label: head, Head: true})
			last = head
		}
		r := row(v)
		r.Label = v.Stmt + " · " + v.Conn
		if !v.DB {
			r.Label = "HTTP only"
		}
		out = append(out, r)
	}
	return out
}

func (d *data) throughputFigure() figure {
	f := figure{ID: "fig-qps", Title: "Throughput: median QPS of each variant's slices, with its 95% interval", Legend: variantsLegend(dbOnly(d.valid), false)}
	order, by := servers(d.valid)
	for _, g := range order {
		title := groupTitle(g)
		var db []*results.Variant
		for _, v := range by[g] {
			if s, ok := d.summary(v, units.QPS); ok && !v.DB {
				title += fmt.Sprintf(" (without the database: %.0f req/s)", s.Center)
				continue
			}
			db = append(db, v)
		}
		rows := layerRows(db, func(v *results.Variant) chart.BarRow {
			s, ok := d.summary(v, units.QPS)
			if !ok {
				return chart.BarRow{Value: "–"}
			}
			r := chart.BarRow{Segs: []chart.BarSeg{{Value: s.Center, Color: chart.StmtColor(v.Stmt), Hollow: chart.Hollow(v.Conn)}},
				Value: fmt.Sprintf("%.0f", s.Center), Tip: fmt.Sprintf("%s: %s req/s", label(v), scaled(s, 1, 0, ""))}
			if s.HasInterval() {
				r.Lo, r.Hi = s.Lo, s.Hi
			}
			return r
		})
		if len(rows) > 0 {
			f.Panels = append(f.Panels, chart.Bars{Title: title, XLabel: "requests per second", Width: halfPage, Rows: rows})
		}
	}
	return f
}

func dbOnly(vs []*results.Variant) []*results.Variant {
	return slices.DeleteFunc(slices.Clone(vs), func(v *results.Variant) bool { return !v.DB })
}

func groupTitle(g group) string { return langName(g.lang) + " under " + serverName(g.server) }

// cpuFigure stacks each variant's median CPU per request by role.
func (d *data) cpuFigure() figure {
	roles := []struct{ unit, name string }{{units.AppCPU, "target (app)"}, {units.DBCPU, "database"}, {units.GenCPU, "load generator"}}
	f := figure{ID: "fig-cpu", Title: "CPU per request by role: medians of the slices"}
	for i, r := range roles {
		f.Legend = append(f.Legend, chart.LegendItem{Name: r.name, Color: roleColors[i]})
	}
	order, by := servers(d.valid)
	for _, g := range order {
		rows := layerRows(by[g], func(v *results.Variant) chart.BarRow {
			var row chart.BarRow
			total := 0.0
			for i, r := range roles {
				s, ok := d.summary(v, r.unit)
				if !ok {
					continue
				}
				row.Segs = append(row.Segs, chart.BarSeg{Value: 1e6 * s.Center, Color: roleColors[i], Tip: fmt.Sprintf("%s: %s %.1f µs per request", label(v), r.name, 1e6*s.Center)})
				total += 1e6 * s.Center
			}
			row.Value = fmt.Sprintf("%.0f µs", total)
			return row
		})
		f.Panels = append(f.Panels, chart.Bars{Title: groupTitle(g), XLabel: "CPU µs per request", Width: halfPage, Rows: rows})
	}
	return f
}

// spectrumFigure draws latency against percentile, one panel per layer (lines per stmt
// and conn, the language's hello as a thin grey reference), sharing each server's
// latency axis.
func (d *data) spectrumFigure() (figure, error) {
	f := figure{ID: "fig-latency", Title: "Latency by percentile, all slices merged: one panel per layer", Narrow: true,
		Note:   "The x axis spreads the tail: 90%, 99% and 99.9% are equally far apart. Hover a point for its value.",
		Legend: variantsLegend(d.valid, true)}
	order, by := servers(d.valid)
	for _, g := range order {
		lines := map[*results.Variant]chart.Series{}
		var hello *chart.Series
		for _, v := range by[g] {
			s, err := spectrumSeries(v)
			if err != nil {
				return figure{}, err
			}
			lines[v] = s
			if !v.DB {
				s.Color, s.Thin, s.Tips = "#999", true, nil
				hello = &s
			}
		}
		var all []chart.Series
		for _, s := range lines {
			all = append(all, s)
		}
		lo, hi := chart.Bounds(all, func(s chart.Series) []float64 { return s.Y }, true)
		xhi := 1.0
		for _, s := range all {
			xhi = math.Max(xhi, slices.Max(append(s.X, 1)))
		}
		for _, layer := range layersOf(by[g]) {
			p := chart.Lines{Title: fmt.Sprintf("%s · %s", groupTitle(g), layer), XLabel: "percentile", YLabel: "latency, ms",
				Width: thirdWidth, Height: 230, X: chart.Scale{Lo: 1, Hi: xhi, Log: true, Labels: percentileTicks}, Y: chart.Scale{Lo: lo, Hi: hi, Log: true}}
			if hello != nil {
				p.Series = append(p.Series, *hello)
			}
			for _, v := range by[g] {
				if v.DB && v.Layer == layer && len(lines[v].X) > 0 {
					p.Series = append(p.Series, lines[v])
				}
			}
			f.Panels = append(f.Panels, p)
		}
	}
	return f, nil
}

func layersOf(vs []*results.Variant) []string {
	var out []string
	for _, v := range vs {
		if v.DB && !slices.Contains(out, v.Layer) {
			out = append(out, v.Layer)
		}
	}
	return out
}

var percentileTicks = []chart.Tick{{At: 1, Label: "0%"}, {At: 2, Label: "50%"}, {At: 10, Label: "90%"}, {At: 100, Label: "99%"},
	{At: 1e3, Label: "99.9%"}, {At: 1e4, Label: "99.99%"}, {At: 1e5, Label: "99.999%"}}

// spectrumSeries merges v's latency histograms and reads x = 1/(1-p), y = ms off them,
// ten points a decade up to the last percentile the sample resolves, with hover text
// at p50, p90, p99 and p99.9.
func spectrumSeries(v *results.Variant) (chart.Series, error) {
	s := chart.Series{Name: label(v), Color: chart.StmtColor(v.Stmt), Dash: chart.Hollow(v.Conn)}
	h, err := v.Latency()
	if err != nil {
		return s, fmt.Errorf("report: %s: %w", v.Name, err)
	}
	total := h.TotalCount()
	if total == 0 {
		return s, nil
	}
	marks := map[int]string{10: "p90", 20: "p99", 30: "p99.9", 3: "p50"}
	for i := 0; ; i++ {
		x := math.Pow(10, float64(i)/10)
		if i == 3 {
			x = 2 // p50 exactly
		}
		if x > float64(total) {
			break
		}
		ms := float64(h.ValueAtQuantile(100*(1-1/x))) / 1e6
		if ms <= 0 {
			continue // below the histogram's resolution: no place on a log axis
		}
		s.X, s.Y = append(s.X, x), append(s.Y, ms)
		t := ""
		if name, ok := marks[i]; ok {
			t = fmt.Sprintf("%s: %s %.2f ms", label(v), name, ms)
		}
		s.Tips = append(s.Tips, t)
	}
	s.X, s.Y = append(s.X, float64(total)), append(s.Y, float64(h.Max())/1e6)
	s.Tips = append(s.Tips, fmt.Sprintf("%s: max %.2f ms", label(v), float64(h.Max())/1e6))
	return s, nil
}
