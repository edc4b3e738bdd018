package soak

import (
	"flag"
	"testing"

	"dbbench/runners/internal/golden"
	"dbbench/runners/present/doc"
)

// update rewrites the golden files instead of comparing with them:
// go test ./soak -run Golden -update (every package's: make golden). go test hands
// the flag to every package it runs, and one without it fails, so not ./... -update.
var update = flag.Bool("update", false, "rewrite the golden files")

// The soak's report.md, compared line by line: of a trimmed real hour (testdata/README.md),
// where nothing grows, and of fakeSoak, interrupted with a leak.
func TestGoldenReport(t *testing.T) {
	real, err := Read("testdata/soak")
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]*File{"soak": real, "leak": fakeSoak()} {
		t.Run(name, func(t *testing.T) {
			f.Judge()
			golden.Check(t, "testdata/"+name+".md", doc.Markdown(Page(f)), *update)
		})
	}
}
