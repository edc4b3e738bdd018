package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"dbbench/runners/results"
	"dbbench/runners/units"
)

// chartWidth is every chart's width; heights follow the number of rows.
const chartWidth = 9 * vg.Inch

// svg renders p as an SVG element to inline into HTML (without the XML prolog).
func svg(p *plot.Plot, h vg.Length) (string, error) { return svgSized(p, chartWidth, h) }

// svgSized is svg at a width other than chartWidth.
func svgSized(p *plot.Plot, width, h vg.Length) (string, error) {
	w, err := p.WriterTo(width, h, "svg")
	if err != nil {
		return "", fmt.Errorf("report: render chart: %w", err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("report: render chart: %w", err)
	}
	s := buf.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return s, nil
}

func rowsHeight(n int) vg.Length { return vg.Length(n)*0.35*vg.Inch + 1.5*vg.Inch }

// qpsChart draws each valid variant's median QPS as a bar with its 95% interval as a
// whisker; a variant without an interval gets no whisker and its label says why.
func (d *data) qpsChart() (string, error) {
	p := plot.New()
	p.Title.Text = "Throughput: median QPS with 95% confidence interval"
	p.X.Label.Text = "requests per second"
	var vals plotter.Values
	var names []string
	var whiskers struct {
		plotter.XYs
		plotter.XErrors
	}
	for _, v := range d.valid {
		s, ok := d.summary(v, units.QPS)
		if !ok {
			continue
		}
		name := label(v)
		if s.HasInterval() {
			whiskers.XYs = append(whiskers.XYs, plotter.XY{X: s.Center, Y: float64(len(vals))})
			whiskers.XErrors = append(whiskers.XErrors, struct{ Low, High float64 }{s.Center - s.Lo, s.Hi - s.Center})
		} else {
			name += fmt.Sprintf(" (n=%d, no interval)", s.N)
		}
		vals = append(vals, s.Center)
		names = append(names, name)
	}
	if len(vals) == 0 {
		return "", nil
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(14))
	if err != nil {
		return "", fmt.Errorf("report: qps chart: %w", err)
	}
	bars.Horizontal = true
	bars.Color = plotutil.Color(0)
	bars.LineStyle.Width = 0
	p.Add(bars)
	if len(whiskers.XYs) > 0 {
		eb, err := plotter.NewXErrorBars(whiskers)
		if err != nil {
			return "", fmt.Errorf("report: qps whiskers: %w", err)
		}
		eb.LineStyle.Width = vg.Points(1.5)
		p.Add(eb)
	}
	p.NominalY(names...)
	p.X.Min = 0
	p.Add(plotter.NewGrid())
	return svg(p, rowsHeight(len(vals)))
}

// spectrumCharts draw, per language, the latency percentile spectrum of each valid
// variant in HdrHistogram's convention: x = 1/(1-p) on a log scale, so 90%, 99%, 99.9%
// are evenly spaced; the repetitions' histograms are merged first.
func (d *data) spectrumCharts() (map[string]string, []string, error) {
	byLang := map[string][]*results.Variant{}
	var langs []string
	for _, v := range d.valid {
		if _, ok := byLang[v.Lang]; !ok {
			langs = append(langs, v.Lang)
		}
		byLang[v.Lang] = append(byLang[v.Lang], v)
	}
	out := map[string]string{}
	for _, lang := range langs {
		p := plot.New()
		p.Title.Text = lang + ": latency by percentile (all repetitions merged)"
		p.X.Label.Text = "percentile"
		p.Y.Label.Text = "latency (ms)"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{
			{Value: 1, Label: "0%"}, {Value: 2, Label: "50%"}, {Value: 10, Label: "90%"}, {Value: 100, Label: "99%"},
			{Value: 1e3, Label: "99.9%"}, {Value: 1e4, Label: "99.99%"}, {Value: 1e5, Label: "99.999%"},
		})
		p.Legend.Top = true
		p.Legend.Left = true
		p.Add(plotter.NewGrid())
		n := 0
		for i, v := range byLang[lang] {
			xys, err := spectrum(v)
			if err != nil {
				return nil, nil, err
			}
			if len(xys) == 0 {
				continue
			}
			line, err := plotter.NewLine(xys)
			if err != nil {
				return nil, nil, fmt.Errorf("report: spectrum of %s: %w", v.Name, err)
			}
			line.Color = plotutil.Color(i)
			line.Dashes = plotutil.Dashes(i / len(plotutil.DefaultColors))
			line.Width = vg.Points(1.5)
			p.Add(line)
			p.Legend.Add(label(v), line)
			n++
		}
		if n == 0 {
			continue
		}
		s, err := svg(p, 5*vg.Inch+vg.Length(n)*0.2*vg.Inch)
		if err != nil {
			return nil, nil, err
		}
		out[lang] = s
	}
	langs = slices.DeleteFunc(langs, func(l string) bool { return out[l] == "" })
	return out, langs, nil
}

// spectrum merges v's latency histograms and reads x = 1/(1-p), y = ms off them, up to
// the last percentile the sample resolves.
func spectrum(v *results.Variant) (plotter.XYs, error) {
	h, err := v.Latency()
	if err != nil {
		return nil, fmt.Errorf("report: %s: %w", v.Name, err)
	}
	total := h.TotalCount()
	if total == 0 {
		return nil, nil
	}
	var xys plotter.XYs
	// Ten points per decade of 1/(1-p), stopping where fewer than one request lies beyond.
	for x := 1.0; x <= float64(total); x *= math.Pow(10, 0.1) {
		q := 100 * (1 - 1/x)
		xys = append(xys, plotter.XY{X: x, Y: float64(h.ValueAtQuantile(q)) / 1e6})
	}
	xys = append(xys, plotter.XY{X: float64(total), Y: float64(h.Max()) / 1e6})
	return xys, nil
}

// cpuChart stacks each valid variant's median CPU per request by role: target,
// database, load generator. A role not measured is drawn as 0 and named in the label.
func (d *data) cpuChart() (string, error) {
	roles := []struct{ unit, name string }{{units.AppCPU, "target"}, {units.DBCPU, "database"}, {units.GenCPU, "generator"}}
	vals := make([]plotter.Values, len(roles))
	var names []string
	for _, v := range d.valid {
		name := label(v)
		var missing []string
		for i, r := range roles {
			s, ok := d.summary(v, r.unit)
			if !ok {
				missing = append(missing, r.name)
				vals[i] = append(vals[i], 0)
				continue
			}
			vals[i] = append(vals[i], 1e6*s.Center)
		}
		if len(missing) > 0 {
			name += " (" + strings.Join(missing, ", ") + " not measured)"
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return "", nil
	}
	p := plot.New()
	p.Title.Text = "CPU per request by role (median µs)"
	p.X.Label.Text = "CPU µs per request"
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	var below *plotter.BarChart
	for i, r := range roles {
		b, err := plotter.NewBarChart(vals[i], vg.Points(14))
		if err != nil {
			return "", fmt.Errorf("report: cpu chart: %w", err)
		}
		b.Horizontal = true
		b.Color = plotutil.Color(i)
		b.LineStyle.Color = color.White
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		p.Legend.Add(r.name, b)
	}
	p.NominalY(names...)
	p.X.Min = 0
	p.Legend.ThumbnailWidth = vg.Points(12)
	return svg(p, rowsHeight(len(names)))
}
