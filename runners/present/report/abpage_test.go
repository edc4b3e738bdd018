package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
)

// abRun is a run of two revisions as dbbench ab writes one: at B, the raw driver's
// interpolate variant costs 30% more CPU per request, its prepare variant no longer
// closes its statements, and GORM and hello are unchanged.
func abRun(t *testing.T) *results.Run {
	t.Helper()
	r := pairedRun(t)
	r.Variants, r.Comparisons = nil, nil
	r.AB = &results.AB{Margin: 0.03,
		A: &results.Rev{ID: "aaa1111", Name: "HEAD~1", Commit: "aaa1111ffff", Subject: "go: GORM v1.30.0", Environment: map[string]string{"gotarget-go": "go1.26.8", "go-gorm": "gorm.io/gorm v1.30.0"}},
		B: &results.Rev{ID: "bbb2222", Name: "HEAD", Commit: "bbb2222ffff", Subject: "go: GORM v1.31.2", Environment: map[string]string{"gotarget-go": "go1.26.8", "go-gorm": "gorm.io/gorm v1.31.2"}}}
	for i, s := range pairedSpecs {
		if s.lang != "go" || (s.layer != "hello" && s.layer != "raw" && s.layer != "gorm") || s.conn != "persistent" && s.layer != "hello" {
			continue
		}
		for j, rev := range []string{"aaa1111", "bbb2222"} {
			sp := s
			if rev == "bbb2222" && s.layer == "raw" && s.stmt == "interpolate" {
				sp.cpuUS, sp.qps = 1.3*s.cpuUS, s.qps/1.3
			}
			v := pairedVariant(t, sp, i+3+j)
			if rev == "bbb2222" && s.stmt == "prepare" {
				v.Roundtrips = roundtrips(s)
				delete(v.Roundtrips.Wire, "Close stmt")
			}
			v.Rev, v.Key = rev, v.Key+"/rev="+rev
			v.Name = "BenchmarkSingleRow/" + v.Key
			r.Variants = append(r.Variants, v)
		}
	}
	for _, p := range questions.Pairs(r, nil) {
		c := &results.Comparison{Question: p.Question, Base: p.Base.Key, Other: p.Other.Key, Reached: true}
		for i := 1; i <= pairedSlices; i++ {
			c.Pairs = append(c.Pairs, results.Pair{Base: []int{i}, Other: []int{i}})
		}
		r.Comparisons = append(r.Comparisons, c)
	}
	return r
}

// The report of a run of two revisions answers one question, "Did B cost anything?",
// with a chart of its own, and the terminal gets the same answer in plain text.
func TestReportOfTwoRevisionsAnswersDidBCostAnything(t *testing.T) {
	r := abRun(t)
	if len(r.Comparisons) != 5 {
		t.Fatalf("%d comparisons, want 5 (hello, raw ×3, gorm)", len(r.Comparisons))
	}
	// The wording is the golden's (synthetic-ab.md); here, what the page is made of.
	p, err := build(judged(t, r))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Answers) != 1 || p.Answers[0].ID != "q-ab" {
		t.Fatalf("answers %+v, want the one of q-ab", p.Answers)
	}
	dir := t.TempDir()
	if err := results.WriteJSON(filepath.Join(dir, "results.json"), r); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, judgedDir(t, dir)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, chartDir, "answer-q-ab.svg")); err != nil {
		t.Errorf("the answer's chart: %v", err)
	}
	text, err := FirstAnswer(judged(t, r))
	if err != nil || !strings.HasPrefix(text, "Did B cost anything? Yes. Commands per request changed") || strings.ContainsAny(text, "⟦⟧") || strings.Contains(text, "README.md") {
		t.Errorf("the answer for a terminal: %q, %v; want plain text", text, err)
	}
}
