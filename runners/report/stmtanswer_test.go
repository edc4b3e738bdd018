package report

import (
	"strings"
	"testing"

	"dbbench/runners/results"
)

// On PostgreSQL two references meet in answer 2: pgx's modes against its statement
// cache, PDO's emulation against a prepare per query. The sentence gives each mode's
// first finding, whichever its reference (the committed sample, as measured).
func TestStmtAnswerGivesEveryReference(t *testing.T) {
	r, err := results.Read("../../reports/sample/postgres-quick/results.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := build(r)
	if err != nil {
		t.Fatal(err)
	}
	a := answerOf(t, p, "q-stmt")
	refs := map[string]bool{}
	for _, g := range a.Groups {
		f := g.Findings[0]
		refs[f.Base.Stmt] = true
		if want := shortLibrary(f.Other) + " " + ratioCI(f.QPS); !strings.Contains(flat(a.Sentence), want) {
			t.Errorf("answer 2 lacks %s against %s, %q:\n%s", f.Other.Stmt, f.Base.Stmt, want, a.Sentence)
		}
	}
	if !refs["prepare"] || !refs["cache_statement"] {
		t.Fatalf("the sample's answer 2 compares against %v, want prepare and cache_statement", refs)
	}
}

// flat joins a wrapped sentence's lines.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }
