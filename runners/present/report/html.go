package report

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"math"
	"strings"

	"dbbench/runners/judge"
	"dbbench/runners/present/chart"
	"dbbench/runners/present/doc"
	"dbbench/runners/results"
)

// runHTML is a run's report.html; the head and the style every page shares are the
// document kit's (runners/present/doc).
//
//go:embed run.html
var runHTML embed.FS

var reportTemplate = doc.Template(runHTML, "run.html", template.FuncMap{"cell": cellHTML})

// cellHTML is a table cell: its lines one under the other, the first a link when the
// cell has one, and data-v for sorting.
func cellHTML(c cell) template.HTML {
	var b strings.Builder
	b.WriteString("<td")
	if !math.IsNaN(c.Sort) {
		fmt.Fprintf(&b, ` data-v="%g"`, c.Sort)
	}
	b.WriteString(">")
	for i, l := range c.Lines {
		if i > 0 {
			b.WriteString("<br>")
		}
		if i == 0 && c.Link != "" {
			fmt.Fprintf(&b, `<a href="%s">%s</a>`, template.HTMLEscapeString(c.Link), template.HTMLEscapeString(l))
			continue
		}
		b.WriteString(template.HTMLEscapeString(l))
	}
	b.WriteString("</td>")
	return template.HTML(b.String())
}

// HTML renders report.html: one self-contained page (inline CSS, SVG and one small
// script, under a CSP that forbids every fetch and every other script) with the same
// content as report.md, and charts.
func HTML(j *judge.Run) ([]byte, error) {
	p, err := build(j)
	if err != nil {
		return nil, err
	}
	return htmlPage(p, j.Results)
}

func htmlPage(p *page, r *results.Run) ([]byte, error) {
	var charts []chart.Panel
	for _, a := range p.Answers {
		c, _ := a.chart()
		charts = append(charts, c)
	}
	var buf bytes.Buffer
	err := reportTemplate.Execute(&buf, map[string]any{
		"CSP":     csp(),
		"Started": r.Started.UTC().Format("2006-01-02 15:04"),
		"P":       p,
		"Charts":  charts,
		"Script":  template.HTML("<script>" + tableScript + "</script>"),
	})
	if err != nil {
		return nil, fmt.Errorf("report: html: %w", err)
	}
	return []byte(linkTerms(buf.String(), p.Glossary, htmlTermLink)), nil
}
