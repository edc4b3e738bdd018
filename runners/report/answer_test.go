package report

import (
	"testing"

	"dbbench/runners/questions"
	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// The evidence line counts what reached the target and names what the marks leave
// undecided, so "all 2 reached the target" never stands beside an unexplained ?.
func TestEvidenceAgreesWithTheMarks(t *testing.T) {
	decided := func(d stats.Decision) estimate {
		return estimate{RatioEstimate: stats.RatioEstimate{N: 21, Ratio: 0.98, Lo: 0.95, Hi: 1.003}, OK: true, Decision: d}
	}
	p := &results.Pairing{Design: "interleave", Turn: "100ms", Precision: 0.03}
	sqlx := &results.Variant{Lang: "go", Server: "nethttp", Layer: "sqlx", Library: "sqlx"}
	gorm := &results.Variant{Lang: "go", Server: "nethttp", Layer: "gorm", Library: "GORM"}
	fs := []finding{
		{Question: questions.Layer, Other: sqlx, Paired: true, Reached: true, Pairing: p, QPS: decided(stats.Undecided), CPU: decided(stats.Different)},
		{Question: questions.Layer, Other: gorm, Paired: true, Reached: false, Pairing: p, QPS: decided(stats.Different), CPU: decided(stats.Different)},
	}
	want := "2 comparisons in interleaved pairs of slices, 21 pairs each; " +
		"1 of 2 reached the ±3% target; 1 undecided (?): sqlx QPS."
	if got := linkTerms(evidence(fs), "", func(words, _ string) string { return words }); got != want {
		t.Errorf("evidence:\n got %q\nwant %q", got, want)
	}
}
