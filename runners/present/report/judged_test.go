package report

import (
	"sync"
	"testing"

	"dbbench/runners/define/matrix"
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

// repoMatrix is the repository's matrix.yaml, read once.
var repoMatrix = sync.OnceValues(func() (*matrix.Matrix, error) { return matrix.Load("../../matrix.yaml") })

// dbTitle is db's title as the repository's matrix gives it and a run records it
// (results.Variant.DatabaseTitle), for variants a test builds by hand.
func dbTitle(t testing.TB, db string) string {
	t.Helper()
	m, err := repoMatrix()
	if err != nil {
		t.Fatal(err)
	}
	return m.DBs[m.DBName(matrix.Variant{Database: db})].Title
}
