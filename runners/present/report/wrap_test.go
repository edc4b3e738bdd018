package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"dbbench/runners/results"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// Wrapping changes where report.md's lines end, not what it says: the golden run's
// report renders to the same HTML wrapped as unwrapped (line ends inside a paragraph
// are spaces), and no line of prose is longer than wrapAt where it could break (inside brackets
// and between a ratio and its interval it cannot).
func TestWrappingRendersTheSame(t *testing.T) {
	r, err := results.Read("testdata/quick-results.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := build(judged(t, r))
	if err != nil {
		t.Fatal(err)
	}
	flat := linkTerms(markdownUnwrapped(p), p.Glossary, mdTermLink)
	wrappedMD := wrapped(flat)
	if wrappedMD == flat {
		t.Fatal("nothing was wrapped: the test shows nothing")
	}
	if a, b := render(t, flat), render(t, wrappedMD); a != b {
		t.Errorf("wrapped report.md renders differently:\n%s\n---\n%s", a, b)
	}
	for _, line := range strings.Split(wrappedMD, "\n") {
		if len(line) > wrapAt && wrappable(line) && len(breakLine(line, "")) > 1 {
			t.Errorf("a prose line of %d bytes could have been broken: %q", len(line), line)
		}
	}
}

// A word that would open a block (a list item, a heading, a quote, a table row) never
// starts a line.
func TestWrappingNeverStartsABlock(t *testing.T) {
	line := strings.Repeat("word ", 19) + "- 1. # > | = --- `code` done " + strings.Repeat("word ", 19)
	out := wrapped(line)
	for _, l := range strings.Split(out, "\n")[1:] {
		if blockStart.MatchString(strings.Fields(l)[0]) {
			t.Errorf("a line starts with a block marker: %q", l)
		}
	}
	if render(t, line) != render(t, out) {
		t.Errorf("renders differently:\n%s", out)
	}
}

var spaces = regexp.MustCompile(`\s+`)

func render(t *testing.T, md string) string {
	var b bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.Table)).Convert([]byte(md), &b); err != nil {
		t.Fatal(err)
	}
	return spaces.ReplaceAllString(b.String(), " ")
}

// oneLine is report.md with its lines joined and spaces collapsed: what a check of
// wording reads, wherever wrapping broke the lines.
func oneLine(md []byte) string { return strings.Join(strings.Fields(string(md)), " ") }
