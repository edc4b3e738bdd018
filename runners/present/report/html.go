package report

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"math"
	"regexp"
	"strings"

	"dbbench/runners/judge"
	"dbbench/runners/present/report/chart"
	"dbbench/runners/results"
)

// pageFS holds what every dbbench page is made of: head.html (its head, up to its
// title), page.css (the style every page shares), run.html (a run's report.html) and
// sweep.html (a sweep's).
//
//go:embed head.html page.css run.html sweep.html
var pageFS embed.FS

// pageTemplate is one page of pageFS (run.html, sweep.html) with the head and the
// style it includes.
func pageTemplate(name string) *template.Template {
	return template.Must(template.New(name).Funcs(funcs).ParseFS(pageFS, "head.html", "page.css", name))
}

var funcs = template.FuncMap{
	"svg":    func(p chart.Panel) template.HTML { return template.HTML(p.SVG()) }, // package chart escapes every text it draws
	"swatch": swatch,
	"cell":   cellHTML,
	"prose":  prose,
}

// codeSpan is a markdown code span in a sentence the markdown report prints as it is.
var codeSpan = regexp.MustCompile("`([^`]+)`")

// prose is a sentence written for report.md, escaped, with its code spans as <code>:
// "`make pool-sweep` measures it" shows no backticks in the HTML.
func prose(s string) template.HTML {
	return template.HTML(codeSpan.ReplaceAllString(template.HTMLEscapeString(s), "<code>$1</code>"))
}

var reportTemplate = pageTemplate("run.html")

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

// swatch draws a legend entry's mark (package chart escapes its text).
func swatch(l chart.LegendItem) template.HTML { return template.HTML(chart.Swatch(l)) }

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
