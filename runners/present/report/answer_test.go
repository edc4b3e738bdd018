package report

import (
	"strings"
	"testing"

	"dbbench/runners/define/matrix"
	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// The evidence line counts what reached the target and names what the marks leave
// undecided, so "all 2 reached the target" never stands beside an unexplained ?.
func TestEvidenceAgreesWithTheMarks(t *testing.T) {
	decided := func(d stats.Decision) estimate {
		return estimate{Judged: results.Judged{Estimate: stats.Estimate{N: 21, Value: 0.98, Lo: 0.95, Hi: 1.003}, Verdict: d}, OK: true}
	}
	p := &results.Pairing{Design: "interleave", Turn: "100ms", Precision: 0.03}
	sqlx := &results.Variant{Variant: matrix.Variant{Lang: "go", Server: "nethttp", Layer: "sqlx"}, Library: "sqlx"}
	gorm := &results.Variant{Variant: matrix.Variant{Lang: "go", Server: "nethttp", Layer: "gorm"}, Library: "GORM"}
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

// The first screen answers at each language's default server, or at the first it
// measured when the run left the default out (a worker-only run still has answers).
func TestAtDefaultServer(t *testing.T) {
	langs := map[string]*results.Lang{"php": {Default: "fpm"}, "go": {Default: "nethttp"}}
	f := func(lang, server string) finding {
		return finding{Other: &results.Variant{Variant: matrix.Variant{Lang: lang, Server: server}}}
	}
	servers := func(fs []finding) (out []string) {
		for _, x := range fs {
			out = append(out, x.Other.Lang+"/"+x.Other.Server)
		}
		return out
	}
	both := []finding{f("php", "worker"), f("go", "nethttp"), f("php", "fpm"), f("php", "worker")}
	if got := servers(atDefaultServer(both, langs)); strings.Join(got, " ") != "go/nethttp php/fpm" {
		t.Errorf("fpm and workers measured: %v, want Go's and php-fpm's", got)
	}
	workers := []finding{f("php", "worker"), f("go", "nethttp")}
	if got := servers(atDefaultServer(workers, langs)); strings.Join(got, " ") != "php/worker go/nethttp" {
		t.Errorf("workers alone: %v, want them kept", got)
	}
}
