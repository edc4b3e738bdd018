package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html"
	"regexp"
	"strings"
	"testing"

	"dbbench/runners/present/chart"
)

func TestHTMLIsSelfContainedUnderItsCSP(t *testing.T) {
	page, err := HTML(judged(t, pairedRun(t)))
	if err != nil {
		t.Fatal(err)
	}
	// The page names no URL it could fetch: only the SVG namespace mentions http.
	rest := bytes.ReplaceAll(page, []byte(`xmlns="http://www.w3.org/2000/svg"`), nil)
	if bytes.Contains(rest, []byte("http:")) || bytes.Contains(rest, []byte("https:")) || bytes.Contains(rest, []byte(" src=")) {
		t.Errorf("report.html refers to the network")
	}
	// One script, allowed by the hash of its exact text and by nothing else.
	scripts := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllSubmatch(page, -1)
	if len(scripts) != 1 {
		t.Fatalf("%d scripts, want 1", len(scripts))
	}
	sum := sha256.Sum256(scripts[0][1])
	want := "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	m := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindSubmatch(page)
	if m == nil || html.UnescapeString(string(m[1])) != want {
		t.Errorf("the CSP does not allow exactly the page's script: %q, want %q", m, want)
	}
	if bytes.Contains(page, []byte("onclick")) || bytes.Contains(page, []byte("unsafe-eval")) {
		t.Errorf("inline handlers or eval would need more than the hash")
	}
}

func TestHTMLAnswersLinkToTheirEvidence(t *testing.T) {
	page, err := HTML(judged(t, pairedRun(t)))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, id := range []string{"q-layer", "q-stmt", "q-conn"} {
		answer := strings.Index(s, `<div class="answer" id="answer-`+id+`">`)
		link := strings.Index(s, `<a href="#`+id+`">Evidence ↓</a>`)
		section := strings.Index(s, `<h2 id="`+id+`">`)
		chart := strings.Index(s, `<figure class="chart answer-chart" id="chart-answer-`+id+`">`)
		if answer < 0 || !(answer < link && link < chart && chart < section) {
			t.Errorf("%s: answer at %d, its link at %d, its chart at %d, its section at %d", id, answer, link, chart, section)
		}
	}
	// Every cell of a comparison table links to its sentence, which exists.
	for _, m := range regexp.MustCompile(`<td data-v="[^"]*"><a href="#(c-[^"]+)">QPS `).FindAllStringSubmatch(s, -1) {
		if !strings.Contains(s, `<li id="`+m[1]+`">`) {
			t.Errorf("cell links to #%s, which is not there", m[1])
		}
	}
}

func TestHTMLChartsShowValuesOnHover(t *testing.T) {
	page, err := HTML(judged(t, pairedRun(t)))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	beego := expectedRatio(t, 2, 5)
	for _, want := range []string{
		// A dot of the answer's chart, a bar of the throughput chart, a point of a spectrum.
		"<g><title>Beego ORM v2 vs raw (database/sql + go-sql-driver/mysql): QPS " + ci(beego),
		"<title>go/nethttp/raw/prepare/persistent/pool=8: p99 ",
		// Every axis says its unit.
		">requests per second</text>", ">latency, ms</text>", ">CPU µs per request</text>", ">QPS ratio, 95% interval (1 = no difference)</text>",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if !regexp.MustCompile(`<g><title>go/nethttp/raw/prepare/persistent/pool=8: [0-9]+ ± [0-9]+% req/s</title><rect `).MatchString(s) {
		t.Errorf("a bar of the throughput chart shows no value on hover")
	}
}

// No panel of the latency figure carries more than 8 lines: one panel per layer.
func TestSpectrumPanelsAreSmall(t *testing.T) {
	d := load(judged(t, pairedRun(t)))
	f, err := d.spectrumFigure()
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Panels) != 9 { // go: raw orm gorm builder sqlx; php fpm: raw orm; worker: raw orm
		t.Errorf("%d panels, want 9", len(f.Panels))
	}
	for _, p := range f.Panels {
		lp := p.(chart.Lines)
		if len(lp.Series) > 8 || len(lp.Series) < 1 {
			t.Errorf("panel %q has %d series", lp.Title, len(lp.Series))
		}
	}
}
