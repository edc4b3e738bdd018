package report

import (
	"bytes"
	"fmt"
	"html/template"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"dbbench/runners/results"
)

// SweepPage is a sweep's report (pool size, network distance) as sections of sentences,
// tables and line charts. The sweep computes the figures; this file only renders them,
// as report.md and report.html in the style of a run's report.
type SweepPage struct {
	Title    string
	Intro    []string
	Sections []SweepSection
}

// SweepSection is one heading with what stands under it, in this order.
type SweepSection struct {
	Heading    string
	Paragraphs []string
	Tables     []Table
	Charts     []LineChart // HTML only; the tables carry the same numbers
}

// Table is a header row and body rows of text cells.
type Table struct {
	Head []string
	Rows [][]string
}

// LineChart draws one line per series, y against x.
type LineChart struct {
	Title, XLabel, YLabel string
	LogX                  bool // base-2 ticks: pool sizes 1, 2, 4 …
	Series                []Series
}

// Series is one line; X and Y have the same length. Missing points are left out.
type Series struct {
	Name string
	X, Y []float64
}

// SweepMarkdown renders the page as markdown.
func SweepMarkdown(p *SweepPage) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", p.Title)
	for _, l := range p.Intro {
		fmt.Fprintf(&b, "%s\n\n", l)
	}
	for _, s := range p.Sections {
		fmt.Fprintf(&b, "## %s\n\n", s.Heading)
		for _, l := range s.Paragraphs {
			fmt.Fprintf(&b, "%s\n\n", l)
		}
		for _, t := range s.Tables {
			mdTable(&b, t.Head, t.Rows)
		}
	}
	return []byte(b.String())
}

var sweepPage = template.Must(template.New("sweep").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
` + pageCSS + `</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Intro}}<p>{{.}}</p>
{{end}}{{range .Sections}}<h2>{{.Heading}}</h2>
{{range .Paragraphs}}<p>{{.}}</p>
{{end}}{{range .Charts}}<figure class="chart">{{.}}</figure>
{{end}}{{range .Tables}}<table><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{end}}{{end}}</body>
</html>
`))

// SweepHTML renders the page as one self-contained HTML file (inline SVG charts, no
// script, a CSP that forbids every fetch), like a run's report.html.
func SweepHTML(p *SweepPage) ([]byte, error) {
	type section struct {
		Heading    string
		Paragraphs []string
		Tables     []Table
		Charts     []template.HTML
	}
	var secs []section
	for _, s := range p.Sections {
		out := section{Heading: s.Heading, Paragraphs: s.Paragraphs, Tables: s.Tables}
		for _, c := range s.Charts {
			svg, err := c.render()
			if err != nil {
				return nil, err
			}
			if svg != "" {
				out.Charts = append(out.Charts, template.HTML(svg)) // gonum escapes the text it draws
			}
		}
		secs = append(secs, out)
	}
	var buf bytes.Buffer
	err := sweepPage.Execute(&buf, map[string]any{"CSP": sweepCSP, "Title": p.Title, "Intro": p.Intro, "Sections": secs})
	if err != nil {
		return nil, fmt.Errorf("report: sweep html: %w", err)
	}
	return buf.Bytes(), nil
}

// WriteSweep writes report.md and report.html of the page into dir.
func WriteSweep(dir string, p *SweepPage) error {
	if err := results.WriteFile(filepath.Join(dir, "report.md"), SweepMarkdown(p)); err != nil {
		return err
	}
	h, err := SweepHTML(p)
	if err != nil {
		return err
	}
	return results.WriteFile(filepath.Join(dir, "report.html"), h)
}

// render draws the chart as inline SVG; "" when no series has a point.
func (c LineChart) render() (string, error) {
	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	if c.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = pow2Ticks{}
	}
	drawn := 0
	for i, s := range c.Series {
		if len(s.X) != len(s.Y) {
			return "", fmt.Errorf("report: chart %q: series %q has %d x and %d y", c.Title, s.Name, len(s.X), len(s.Y))
		}
		var xys plotter.XYs
		for j := range s.X {
			xys = append(xys, plotter.XY{X: s.X[j], Y: s.Y[j]})
		}
		if len(xys) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return "", fmt.Errorf("report: chart %q: %w", c.Title, err)
		}
		l.Color, pts.Color = plotutil.Color(i), plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i / 7) // past seven colours, tell lines apart by dashes
		pts.Shape = plotutil.Shape(i)
		p.Add(l, pts)
		p.Legend.Add(s.Name, l, pts)
		drawn++
	}
	if drawn == 0 {
		return "", nil
	}
	p.Y.Min = 0
	return svg(p, 4*vg.Inch)
}

// pow2Ticks labels a log axis at powers of two, the pool sizes a sweep visits.
type pow2Ticks struct{}

func (pow2Ticks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for x := 1.0; x <= hi*1.0001; x *= 2 {
		if x >= lo*0.9999 {
			out = append(out, plot.Tick{Value: x, Label: fmt.Sprint(x)})
		}
	}
	return out
}
