package main

import (
	"bytes"
	"strings"
	"testing"

	"dbbench/runners/define/matrix"
	"dbbench/runners/internal/golden"
	"dbbench/runners/judge"
	"dbbench/runners/judge/revcost"
	"dbbench/runners/present/report"
	"dbbench/runners/results"
)

// dbbench ab's closing table marks each figure as the report's tables do (one set of
// marks, from the findings the run stored), and its wording is a golden file.
func TestABTerminalMarksTheFindings(t *testing.T) {
	res, err := results.Read("../../present/report/testdata/ab-results.json")
	if err != nil {
		t.Fatal(err)
	}
	j, err := judge.Of(res)
	if err != nil {
		t.Fatal(err)
	}
	a := j.Revision
	var out bytes.Buffer
	printAnswer(&out, j)
	for _, v := range a.Variants {
		row := rowOf(out.String(), matrix.ShortKey(revcost.Label(v.B)))
		for _, e := range v.Figures {
			cell := revcost.Change(e.Estimate) + " " + report.Mark(e.Verdict)
			if !strings.Contains(row, cell) {
				t.Errorf("%s: %s: no cell %q in %q", v.B.Key, e.Name, cell, row)
			}
		}
	}
	golden.Check(t, "testdata/ab-closing.txt", out.Bytes(), *update)
}

// rowOf is the table's line for a variant.
func rowOf(out, variant string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, variant+" ") {
			return l
		}
	}
	return ""
}
