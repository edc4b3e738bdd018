// Package doc is the document kit every dbbench page is made of: the head and the style
// all report.html files share, markdown tables, figures of chart panels side by side,
// and the page of sections, tables and line charts that the sweeps and the soak fill
// (Page). It formats what it is given; it measures and judges nothing.
package doc

import (
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"dbbench/runners/present/chart"
)

// pageFS holds what every page shares, head.html (its head, up to its title) and
// page.css (its style), and sweep.html (Page's report.html).
//
//go:embed head.html page.css sweep.html
var pageFS embed.FS

// Template is page name of fsys (run.html, sweep.html) with the head and the style it
// includes, and the kit's functions (svg, swatch, prose) beside funcs.
func Template(fsys fs.FS, name string, funcs template.FuncMap) *template.Template {
	t := template.New(name).Funcs(template.FuncMap{
		"svg":    func(p chart.Panel) template.HTML { return template.HTML(p.SVG()) }, // package chart escapes every text it draws
		"swatch": func(l chart.LegendItem) template.HTML { return template.HTML(chart.Swatch(l)) },
		"prose":  Prose,
	}).Funcs(funcs)
	t = template.Must(t.ParseFS(pageFS, "head.html", "page.css"))
	return template.Must(t.ParseFS(fsys, name))
}

// codeSpan is a markdown code span in a sentence the markdown page prints as it is.
var codeSpan = regexp.MustCompile("`([^`]+)`")

// Prose is a sentence written for report.md, escaped, with its code spans as <code>:
// "`make pool-sweep` measures it" shows no backticks in the HTML.
func Prose(s string) template.HTML {
	return template.HTML(codeSpan.ReplaceAllString(template.HTMLEscapeString(s), "<code>$1</code>"))
}

// HalfPage is the width of a chart panel that stands beside another.
const HalfPage = 520.0

// Figure is a caption, a legend and small multiples: panels side by side.
type Figure struct {
	ID, Title string
	Note      string
	Legend    []chart.LegendItem
	Panels    []chart.Panel
	Narrow    bool // panels a third of the page wide rather than half
}

// MarkdownTable writes a markdown table, a | in a cell escaped.
func MarkdownTable(b *strings.Builder, head []string, rows [][]string) {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	line := func(cells []string) {
		for i := range cells {
			cells[i] = esc(cells[i])
		}
		fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
	}
	line(slices.Clone(head))
	seps := make([]string, len(head))
	for i := range seps {
		seps[i] = "---"
	}
	fmt.Fprintf(b, "|%s|\n", strings.Join(seps, "|"))
	for _, r := range rows {
		line(slices.Clone(r))
	}
	b.WriteString("\n")
}

// sweepCSP is Page's: no script at all, and no fetch.
const sweepCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
