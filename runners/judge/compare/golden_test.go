package compare

import (
	"flag"
	"testing"

	"dbbench/runners/internal/golden"
	"dbbench/runners/judge/compare/comparetest"
	"dbbench/runners/results"
)

// update rewrites the golden files instead of comparing with them:
// go test ./compare -run Golden -update (every package's: make golden). go test hands
// the flag to every package it runs, and one without it fails, so not ./... -update.
var update = flag.Bool("update", false, "rewrite the golden files")

// compare's text, compared line by line with testdata/<name>.txt, so that no sentence
// or row of it changes unseen.
func TestGoldenText(t *testing.T) {
	v1 := func() *results.Run {
		r, err := results.Read("testdata/v1-quick.json")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, c := range []struct {
		name     string
		old, new func() *results.Run
	}{
		// comparetest's runs: a machine 0.6 times as fast, on which GORM is 10% slower
		// still and PDO sends two more queries per request.
		{"slower", func() *results.Run { return comparetest.Run(1) }, func() *results.Run {
			r := comparetest.Run(2)
			comparetest.Machine(r, 0.6)
			comparetest.Slow(r, comparetest.Gorm, 0.9)
			comparetest.AddCommands(r, comparetest.Key("php", "fpm", "raw", "interpolate", "persistent", 8), 2)
			return r
		}},
		// A real run of schema v1 (no yardstick, no pairs) against itself.
		{"v1-quick", v1, v1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Compare(c.old(), c.new(), Options{Margin: 0.03, OldLabel: "old", NewLabel: "new"})
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "testdata/"+c.name+".txt", []byte(r.String()), *update)
		})
	}
}
