package report

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"regexp"
	"strings"

	"dbbench/runners/report/chart"
	"dbbench/runners/results"
)

// pageCSS is the style every dbbench page shares: a run's report and a sweep's.
const pageCSS = `body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1400px; padding: 0 16px 2em; color: #222; }
h1 { font-size: 22px; margin: 10px 0 2px; }
h2 { font-size: 19px; margin: 1.6em 0 .4em; }
h3 { font-size: 16px; margin: 1.2em 0 .3em; }
p.run { margin: 0 0 6px; color: #555; font-size: 13px; }
p.rev { margin: 0 0 2px; font-size: 14px; }
.answers { display: grid; gap: 8px 22px; }
.answer h2 { font-size: 16px; margin: 6px 0 2px; }
.answer p { margin: 0 0 4px; font-size: 14px; line-height: 1.4; }
.answer p.evidence { color: #555; font-size: 12.5px; }
.answer figure { margin: 4px 0 0; } /* tight under the answer: the four fit 1366×768 */
@media (min-width: 1200px) { .answers { grid-template-columns: repeat(3, minmax(0, 1fr)); grid-template-rows: auto 1fr; }
  /* The first answer, the longest, spans two rows; the fourth, which has no chart,
     sits under the second and third, so the four fit the first screen. */
  .answers > .answer:first-child { grid-row: span 2; }
  #answer-q-pool { grid-column: 2 / span 2; align-self: start; } }
@media (min-width: 800px) and (max-width: 1199px) { .answer { display: grid; grid-template-columns: minmax(0, 1fr) 440px; gap: 16px; } }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
th button { font: inherit; font-weight: bold; border: 0; background: none; padding: 0; cursor: pointer; }
th button::after { content: " ⇅"; color: #999; }
th[aria-sort=ascending] button::after { content: " ▲"; color: #222; }
th[aria-sort=descending] button::after { content: " ▼"; color: #222; }
table.sortable td { white-space: nowrap; }
table.sortable td[data-v] { text-align: right; }
.scroll { overflow-x: auto; max-width: 100%; }
.filters label { margin-right: 1em; font-size: 13px; }
figure { margin: .8em 0 1.4em; }
figure.chart svg { max-width: 100%; height: auto; display: block; }
figcaption { font-weight: bold; font-size: 14px; margin-bottom: 4px; }
.panels { display: flex; flex-wrap: wrap; gap: 10px 18px; align-items: flex-start; }
.legend { font-size: 13px; margin: 2px 0 6px; }
.legend span { margin-right: 1.2em; white-space: nowrap; }
figure.chart .legend svg { display: inline-block; vertical-align: middle; margin-right: 4px; }
.note { color: #555; font-size: 13px; }
.warn { color: #a40; }
`

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

// pageHead opens every dbbench page up to its title; the page gives .CSP.
const pageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
`

var reportTemplate = template.Must(template.New("report").Funcs(funcs).Parse(pageHead + `<title>dbbench report {{.Started}}</title>
<style>
` + pageCSS + `</style>
</head>
<body>
<h1>dbbench report</h1>
{{range .P.Revisions}}<p class="rev">{{.}}</p>
{{end}}<p class="run">{{.P.RunLine}}</p>
{{range .P.Alerts}}<p class="warn"><strong>{{.}}</strong></p>
{{end}}<section class="answers">
{{range $i, $a := .P.Answers}}<div class="answer" id="answer-{{$a.ID}}">
<div class="say"><h2>{{$a.Title}}</h2><p class="sentence">{{prose $a.Sentence}}</p><p class="evidence"><a href="#{{$a.ID}}">Evidence ↓</a></p></div>
{{with index $.Charts $i}}<figure class="chart answer-chart" id="chart-answer-{{$a.ID}}">{{svg .}}</figure>{{end}}
</div>
{{end}}</section>
{{range .P.Sections}}{{template "section" .}}{{end}}
{{with .P.Profile}}{{template "section" .}}{{end}}
<h2 id="variants">Every variant</h2>
{{if .P.Filters}}<div class="filters">Show only: {{range .P.Filters}}<label>{{.Key}} <select data-col="{{.Col}}"><option value="">all</option>{{range .Values}}<option>{{.}}</option>{{end}}</select></label>{{end}}</div>
{{end}}{{range .P.Variants}}{{template "grid" .}}{{end}}
<h2 id="charts">Every variant in charts</h2>
{{range .P.Figures}}{{template "figure" .}}{{end}}
<h2 id="appendix">Appendix</h2>
{{range .P.Appendix.Groups}}<h3>{{.Title}}</h3>
<ul>{{range .Items}}<li id="{{.ID}}">{{.Text}}</li>{{end}}</ul>
{{end}}<h3>HTTP-only ceiling</h3>
{{range .P.Appendix.Ceiling}}<p>{{.}}</p>{{end}}
<h3>Round trips</h3>
{{template "grid" .P.Appendix.Trips}}
{{with .P.Appendix.Connections}}<h3>New connections</h3>
{{template "grid" .}}
{{end}}<h3>Invalid variants</h3>
{{if .P.Appendix.Invalid}}<ul>{{range .P.Appendix.Invalid}}<li>{{.}}</li>{{end}}</ul>{{else}}<p>None.</p>{{end}}
<h3>Flagged variants</h3>
{{if .P.Appendix.Flagged}}<ul>{{range .P.Appendix.Flagged}}<li>{{.}}</li>{{end}}</ul>{{else}}<p>None.</p>{{end}}
{{with .P.Appendix.Yardstick}}<h3>Yardstick</h3>
<p>{{.}}</p>
{{end}}{{if .P.Appendix.Rounds}}<h3>Stability across rounds</h3>
{{range .P.Appendix.Rounds}}<p>{{.}}</p>{{end}}{{with .P.Appendix.RoundsGrid}}{{template "grid" .}}{{end}}
{{end}}<h3>Environment</h3>
{{template "grid" .P.Appendix.Environment}}
{{.Script}}
</body>
</html>
{{define "section"}}<h2 id="{{.ID}}">{{.Title}}</h2>
{{if .Empty}}<p>{{.Empty}}</p>{{end}}{{range .Intro}}<p class="note">{{prose .}}</p>
{{end}}{{range .Grids}}{{template "grid" .}}{{end}}{{range .Paragraphs}}<p>{{prose .}}</p>
{{end}}{{range .Figures}}{{template "figure" .}}{{end}}{{end}}
{{define "figure"}}<figure class="chart" id="{{.ID}}"><figcaption>{{.Title}}</figcaption>
{{if .Legend}}<div class="legend">{{range .Legend}}<span>{{swatch .}}{{.Name}}</span>{{end}}</div>{{end}}
{{with .Note}}<p class="note">{{.}}</p>{{end}}<div class="panels">{{range .Panels}}{{svg .}}{{end}}</div></figure>
{{end}}
{{define "grid"}}<div class="scroll">{{with .Caption}}<p><strong>{{.}}</strong></p>{{end}}<table{{if .ID}} id="{{.ID}}"{{end}}{{if .Sortable}} class="sortable"{{end}}>
<thead><tr>{{$s := .Sortable}}{{range .Head}}<th>{{if $s}}<button type="button">{{.}}</button>{{else}}{{.}}{{end}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}{{cell .}}{{end}}</tr>
{{end}}</tbody></table>{{range .Notes}}<p class="note">{{.}}</p>{{end}}</div>
{{end}}`))

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
func HTML(r *results.Run) ([]byte, error) {
	p, err := build(r)
	if err != nil {
		return nil, err
	}
	return htmlPage(p, r)
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
