package report

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"dbbench/runners/internal/golden"
	"dbbench/runners/results"
)

// update rewrites the golden files instead of comparing with them:
// go test ./report -run Golden -update (every package's: make golden). go test hands
// the flag to every package it runs, and one without it fails, so not ./... -update.
var update = flag.Bool("update", false, "rewrite the golden files")

// report.md of a committed run, compared line by line, so that no sentence, figure or
// row changes unseen; testdata/README.md says where the run comes from.
func TestGoldenMarkdown(t *testing.T) {
	r, err := results.Read("testdata/quick-results.json")
	if err != nil {
		t.Fatal(err)
	}
	md, err := Markdown(judged(t, r))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/quick-report.md", md, *update)
}

// report.html of the same run: the richest output, its wording and figures checked as
// report.md's are.
func TestGoldenHTML(t *testing.T) {
	r, err := results.Read("testdata/quick-results.json")
	if err != nil {
		t.Fatal(err)
	}
	h, err := HTML(judged(t, r))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/quick-report.html", h, *update)
}

// report.md and report.html of a committed dbbench ab run (two revisions, a planted
// slowdown): the first screen answers "did B cost anything?" from the same kind of
// findings, and its wording is checked as a run's is.
func TestGoldenABPage(t *testing.T) {
	r, err := results.Read("testdata/ab-results.json")
	if err != nil {
		t.Fatal(err)
	}
	md, err := Markdown(judged(t, r))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/ab-report.md", md, *update)
	h, err := HTML(judged(t, r))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/ab-report.html", h, *update)
}

// The same run through Write, as `dbbench report` does: its variants have no latency
// histograms (the fixture dropped them), and report.html's latency panels, empty, once
// drew log ticks without end.
func TestWriteWithoutHistograms(t *testing.T) {
	b, err := os.ReadFile("testdata/quick-results.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, judgedDir(t, dir)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"report.md", "report.html", "report-charts/answer-q-layer.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
