package report

import (
	"bytes"
	"fmt"
	"html/template"

	"dbbench/runners/results"
)

// csp forbids every fetch: the page must open from file:// with no network, and a
// chart that tried to load anything would be blocked rather than leak a request.
const csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"

// pageCSS is the style every dbbench page shares: a run's report and a sweep's.
const pageCSS = `body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
figure.chart { margin: 1.5em 0; }
figure.chart svg { max-width: 100%; height: auto; display: block; }
.warn { color: #a40; }
`

var page = template.Must(template.New("report").Funcs(template.FuncMap{"inc": func(i int) int { return i + 1 }}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>dbbench report {{.Started}}</title>
<style>
` + pageCSS + `</style>
</head>
<body>
<h1>dbbench report</h1>
{{range .Preface}}<p>{{.}}</p>
{{end}}{{range .Alerts}}<p class="warn"><strong>{{.}}</strong></p>
{{end}}
{{range .Questions}}<h2>{{.Title}}</h2>
{{if .Answers}}<ul>{{range .Answers}}<li>{{.}}</li>{{end}}</ul>{{else}}<p>{{.NoAnswers}}</p>{{end}}
{{end}}
<h2>Throughput</h2>
{{if .QPS}}<figure class="chart" id="chart-qps">{{.QPS}}</figure>{{else}}<p>No valid variant was measured.</p>{{end}}
<h2>Latency spectrum</h2>
{{range .Spectra}}<figure class="chart" id="chart-latency-{{.Lang}}">{{.SVG}}</figure>
{{end}}
<h2>CPU per request</h2>
{{if .CPU}}<figure class="chart" id="chart-cpu">{{.CPU}}</figure>{{end}}
<h2>Every variant</h2>
<p>Medians of the repetitions with benchstat's 95% confidence interval (± the larger side, in percent). A mark (!n) beside a number refers to warning n below the table.</p>
{{template "table" .Variants}}
{{range $i, $w := .Notes}}<p class="warn">(!{{inc $i}}) {{$w}}</p>
{{end}}
<h2>HTTP-only ceiling</h2>
{{range .Ceiling}}<p>{{.}}</p>{{end}}
<h2>Round trips</h2>
{{template "table" .Trips}}
<h2>Invalid variants</h2>
{{if .Invalid}}<ul>{{range .Invalid}}<li>{{.}}</li>{{end}}</ul>{{else}}<p>None.</p>{{end}}
<h2>Flagged variants</h2>
{{if .Flagged}}<ul>{{range .Flagged}}<li>{{.}}</li>{{end}}</ul>{{else}}<p>None.</p>{{end}}
<h2>Stability across rounds</h2>
<p>{{.RoundsText}}</p>
{{if .Rounds.Rows}}{{template "table" .Rounds}}{{end}}
<h2>Environment</h2>
{{template "table" .Environment}}
</body>
</html>
{{define "table"}}<table><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>{{end}}
`))

type table struct {
	Head []string
	Rows [][]string
}

// HTML renders report.html: one self-contained page (inline CSS and SVG, no script, a
// CSP that forbids every fetch) with the questions' answers, the charts and the tables.
func HTML(r *results.Run) ([]byte, error) {
	d, err := load(r)
	if err != nil {
		return nil, err
	}
	qps, err := d.qpsChart()
	if err != nil {
		return nil, err
	}
	spectra, langs, err := d.spectrumCharts()
	if err != nil {
		return nil, err
	}
	cpu, err := d.cpuChart()
	if err != nil {
		return nil, err
	}
	type spectrum struct {
		Lang string
		SVG  template.HTML
	}
	var sp []spectrum
	for _, l := range langs {
		sp = append(sp, spectrum{l, template.HTML(spectra[l])}) // gonum escapes the text it draws
	}
	lines, alerts := d.preface()
	var n notes
	head, rows := d.variantRows(&n)
	var invalid []string
	for _, v := range d.invalid {
		invalid = append(invalid, label(v)+": "+reason(v))
	}
	sentence, rhead, rrows := roundsText(rounds(d.run))
	var buf bytes.Buffer
	err = page.Execute(&buf, map[string]any{
		"CSP":         csp,
		"Started":     r.Started.UTC().Format("2006-01-02 15:04"),
		"Preface":     lines,
		"Alerts":      alerts,
		"Questions":   d.questions(),
		"QPS":         template.HTML(qps),
		"Spectra":     sp,
		"CPU":         template.HTML(cpu),
		"Variants":    table{head, rows},
		"Notes":       n.list,
		"Ceiling":     d.ceiling(),
		"Trips":       table{[]string{"variant", "commands per request", "commands", "round trips", "matches the matrix"}, d.tripRows()},
		"Invalid":     invalid,
		"Flagged":     d.flagged(),
		"RoundsText":  roundsIntro + " " + sentence,
		"Rounds":      table{rhead, rrows},
		"Environment": table{[]string{"setting", "value"}, d.environment()},
	})
	if err != nil {
		return nil, fmt.Errorf("report: html: %w", err)
	}
	return buf.Bytes(), nil
}
