package doc

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"dbbench/runners/present/chart"
	"dbbench/runners/results"
)

// Page is a sweep's report (pool size, network distance) as sections of sentences,
// tables and line charts. The sweep computes the figures; this file only renders them,
// as report.md and report.html in the style of a run's report.
type Page struct {
	Title string
	// Answer is what the sweep recommends, in sentences: the page's first lines.
	Answer   []string
	Intro    []string
	Sections []Section
}

// Section is one heading with what stands under it, in this order.
type Section struct {
	Heading    string
	Paragraphs []string
	Tables     []Table
	Charts     []LineChart // HTML only, side by side; the tables carry the same numbers
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
// Stmt and Conn, when set, colour the line as every dbbench chart colours them.
type Series struct {
	Name       string
	X, Y       []float64
	Stmt, Conn string
	// LineOnly draws the line without a mark, or a hover value, at each point: for
	// series of hundreds of samples (a soak's), whose numbers are in the page's tables.
	LineOnly bool
}

// Markdown renders the page as markdown.
func Markdown(p *Page) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", p.Title)
	for _, l := range p.Answer {
		if strings.Contains(l, "**") { // it bolds its own figure: bold around it would nest
			fmt.Fprintf(&b, "%s\n\n", l)
			continue
		}
		fmt.Fprintf(&b, "**%s**\n\n", l)
	}
	for _, l := range p.Intro {
		fmt.Fprintf(&b, "%s\n\n", l)
	}
	for _, s := range p.Sections {
		fmt.Fprintf(&b, "## %s\n\n", s.Heading)
		for _, l := range s.Paragraphs {
			fmt.Fprintf(&b, "%s\n\n", l)
		}
		for _, t := range s.Tables {
			MarkdownTable(&b, t.Head, t.Rows)
		}
	}
	return []byte(b.String())
}

var sweepPage = Template(pageFS, "sweep.html", nil)

// HTML renders the page as one self-contained HTML file (inline SVG charts, no
// script, a CSP that forbids every fetch), like a run's report.html: the
// recommendation first, then each section with its charts side by side.
func HTML(p *Page) ([]byte, error) {
	type section struct {
		Heading    string
		Paragraphs []string
		Tables     []Table
		Figure     *Figure
	}
	var secs []section
	for i, s := range p.Sections {
		out := section{Heading: s.Heading, Paragraphs: s.Paragraphs, Tables: s.Tables}
		if f, ok := sweepFigure(fmt.Sprintf("fig-%d", i+1), s.Charts); ok {
			out.Figure = &f
		}
		secs = append(secs, out)
	}
	answer := make([]template.HTML, len(p.Answer))
	for i, l := range p.Answer {
		answer[i] = answerHTML(l)
	}
	var buf bytes.Buffer
	err := sweepPage.Execute(&buf, map[string]any{"CSP": sweepCSP, "Title": p.Title, "Answer": answer, "Intro": p.Intro, "Sections": secs})
	if err != nil {
		return nil, fmt.Errorf("doc: html: %w", err)
	}
	return buf.Bytes(), nil
}

// Write writes report.md and report.html of the page into dir.
func Write(dir string, p *Page) error {
	if err := results.WriteFile(filepath.Join(dir, "report.md"), Markdown(p)); err != nil {
		return err
	}
	h, err := HTML(p)
	if err != nil {
		return err
	}
	return results.WriteFile(filepath.Join(dir, "report.html"), h)
}

// sweepFigure sets a section's charts side by side under one legend: the charts of a
// section draw the same series.
func sweepFigure(id string, charts []LineChart) (Figure, bool) {
	f := Figure{ID: id}
	for _, c := range charts {
		p, legend, ok := c.panel()
		if !ok {
			continue
		}
		if f.Legend == nil {
			f.Legend = legend
		}
		f.Panels = append(f.Panels, p)
	}
	return f, len(f.Panels) > 0
}

// panel turns the chart into a line panel with its legend; ok is false when no series
// has a point. Series with a stmt are coloured as everywhere else when that tells
// them apart; otherwise each gets a colour of its own.
func (c LineChart) panel() (chart.Lines, []chart.LegendItem, bool) {
	p := chart.Lines{Title: c.Title, XLabel: c.XLabel, YLabel: c.YLabel, Width: HalfPage, Height: 300}
	byStmt := distinctStmts(c.Series)
	var legend []chart.LegendItem
	for i, s := range c.Series {
		if len(s.X) != len(s.Y) || len(s.X) == 0 {
			continue
		}
		color, dash := chart.Colors[i%len(chart.Colors)], i >= len(chart.Colors)
		if byStmt {
			color, dash = chart.StmtColor(s.Stmt), chart.Hollow(s.Conn)
		}
		ls := chart.Series{Name: s.Name, X: s.X, Y: s.Y, Color: color, Dash: dash, Marker: !s.LineOnly}
		if !s.LineOnly { // a hover mark per point: not for hundreds of them (the tables have the numbers)
			ls.Tips = pointTips(c, s)
		}
		p.Series = append(p.Series, ls)
		legend = append(legend, chart.LegendItem{Name: s.Name, Color: color, Dash: dash, Line: true})
	}
	if len(p.Series) == 0 {
		return p, nil, false
	}
	lo, hi := chart.Bounds(p.Series, func(s chart.Series) []float64 { return s.X }, c.LogX)
	if !c.LogX {
		lo, hi = xRange(p.Series)
	}
	p.X = chart.Scale{Lo: lo, Hi: hi, Log: c.LogX}
	if c.LogX {
		p.X.Labels = pow2Ticks(lo, hi)
	}
	_, top := chart.Bounds(p.Series, func(s chart.Series) []float64 { return s.Y }, false)
	p.Y = chart.Scale{Lo: 0, Hi: top}
	return p, legend, true
}

// distinctStmts says whether every series has a stmt and no two share stmt and conn.
func distinctStmts(ss []Series) bool {
	seen := map[[2]string]bool{}
	for _, s := range ss {
		k := [2]string{s.Stmt, s.Conn}
		if s.Stmt == "" || seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}

func pointTips(c LineChart, s Series) []string {
	var out []string
	for i := range s.X {
		out = append(out, fmt.Sprintf("%s: %s %g → %s %.4g", s.Name, c.XLabel, s.X[i], c.YLabel, s.Y[i]))
	}
	return out
}

// xRange is the data's x extent, a little padded so end points stay inside.
func xRange(ss []chart.Series) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		lo, hi = math.Min(lo, slices.Min(s.X)), math.Max(hi, slices.Max(s.X))
	}
	pad := (hi - lo) * 0.04
	if pad == 0 {
		pad = 0.5
	}
	return lo - pad, hi + pad
}

// pow2Ticks label a log axis at powers of two, the pool sizes a sweep visits.
func pow2Ticks(lo, hi float64) []chart.Tick {
	var out []chart.Tick
	for x := 1.0; x <= hi*1.0001; x *= 2 {
		if x >= lo*0.9999 {
			out = append(out, chart.Tick{At: x, Label: fmt.Sprint(x)})
		}
	}
	return out
}

// boldRun is a Markdown **bold** run of an answer line.
var boldRun = regexp.MustCompile(`\*\*(.+?)\*\*`)

// answerHTML is an answer line as Markdown shows it: in bold as a whole, or, when it
// bolds its own figure, with that figure in bold; its text escaped.
func answerHTML(l string) template.HTML {
	esc := template.HTMLEscapeString(l)
	if !strings.Contains(l, "**") {
		return template.HTML("<strong>" + esc + "</strong>")
	}
	return template.HTML(boldRun.ReplaceAllString(esc, "<strong>$1</strong>"))
}
