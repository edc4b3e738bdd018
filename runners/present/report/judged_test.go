package report

import (
	"testing"

	"dbbench/runners/judge"
	"dbbench/runners/results"
)

// judged is r judged, as the commands hand runs to the report.
func judged(t testing.TB, r *results.Run) *judge.Run {
	t.Helper()
	j, err := judge.Of(r)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// judgedDir is the run in dir judged.
func judgedDir(t testing.TB, dir string) *judge.Run {
	t.Helper()
	j, err := judge.File(dir)
	if err != nil {
		t.Fatal(err)
	}
	return j
}
