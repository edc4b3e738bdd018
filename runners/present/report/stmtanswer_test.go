package report

import (
	"strings"
	"testing"

	"dbbench/runners/results"
)

// On PostgreSQL two references meet in answer 2: pgx's modes against its statement
// cache, PDO's emulation against a prepare per query. The sentence gives each mode's
// first finding against a prepare per query, and against pgx's default its best mode
// only (the first screen stays short); the answer's section keeps every mode (the
// committed sample, as measured).
func TestStmtAnswerGivesEveryReference(t *testing.T) {
	r, err := results.Read("../../../reports/sample/postgres-quick/results.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := build(judged(t, r))
	if err != nil {
		t.Fatal(err)
	}
	a := answerOf(t, p, "q-stmt")
	refs, modes := map[string]bool{}, map[string]bool{}
	for _, g := range a.Groups {
		f := g.Findings[0]
		refs[f.Base.Stmt], modes[f.Other.Stmt] = true, true
		want := shortLibrary(f.Other) + " " + ratioCI(f.QPS)
		worded := strings.Contains(flat(a.Sentence), want)
		// pgx's five modes, measured: simple_protocol keeps the most of cache_statement
		// (0.71×); describe_exec the least (0.54×), in the section only.
		wantWorded := f.Base.Stmt == "prepare" || f.Other.Stmt == "simple_protocol"
		if worded != wantWorded {
			t.Errorf("answer 2 names %s against %s (%q): %v, want %v:\n%s", f.Other.Stmt, f.Base.Stmt, want, worded, wantWorded, a.Sentence)
		}
	}
	if !refs["prepare"] || !refs["cache_statement"] {
		t.Fatalf("the sample's answer 2 compares against %v, want prepare and cache_statement", refs)
	}
	for _, m := range []string{"simple_protocol", "cache_describe", "describe_exec", "exec", "interpolate", "binary_parameters"} {
		if !modes[m] {
			t.Errorf("answer 2's section lacks %s: it keeps every mode", m)
		}
	}
}

// flat joins a wrapped sentence's lines.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }
