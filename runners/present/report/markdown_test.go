package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"dbbench/runners/internal/golden"
	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// expectedRatio is what the report must say of other's QPS against base's in
// pairedRun: the Hodges–Lehmann estimate of the per-slice ratios, computed here from
// the specs (the pace cancels in each pair).
func expectedRatio(t *testing.T, base, other int) stats.Estimate {
	t.Helper()
	var ratios []float64
	for i := 1; i <= pairedSlices; i++ {
		b := pairedSpecs[base].qps * jitter(base+3, i)
		o := pairedSpecs[other].qps * jitter(other+3, i)
		ratios = append(ratios, o/b)
	}
	return hodgesLehmann(t, ratios)
}

// expectedCPURatio is the same for app CPU per request, which goes as 1/jitter.
func expectedCPURatio(t *testing.T, base, other int) stats.Estimate {
	t.Helper()
	var ratios []float64
	for i := 1; i <= pairedSlices; i++ {
		b := pairedSpecs[base].cpuUS / jitter(base+3, i)
		o := pairedSpecs[other].cpuUS / jitter(other+3, i)
		ratios = append(ratios, o/b)
	}
	return hodgesLehmann(t, ratios)
}

func hodgesLehmann(t *testing.T, ratios []float64) stats.Estimate {
	e, err := stats.PairedRatio(ratios)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func ci(e stats.Estimate) string {
	return fmt.Sprintf("%.2f× [%.2f, %.2f]", e.Value, e.Lo, e.Hi)
}

// The synthetic runs' report.md, line by line: wording and layout are the goldens'
// (go test ./report -run Golden -update rewrites them); the tests below check the
// findings the pages are made of.
func TestGoldenSyntheticMarkdown(t *testing.T) {
	for name, mk := range map[string]func(t *testing.T) *results.Run{
		"paired": pairedRun,
		// With a connect cost in the appendix and an invalid variant.
		"paired-appendix": func(t *testing.T) *results.Run {
			r := pairedRun(t)
			r.Connections = map[string][]*results.ConnectCost{"mysql": {{Path: "caching_sha2_password, full, RSA key fetched", RoundTrips: 3,
				ServerCPU: 2.4e-3, ServerCPULo: 2.3e-3, ServerCPUHi: 2.5e-3, Latency: 3.3e-3, LatencyLo: 3.2e-3, LatencyHi: 3.4e-3, Connections: 600}}}
			return r
		},
		"profiles": func(t *testing.T) *results.Run {
			r := pairedRun(t)
			withProfiles(r)
			return r
		},
		"stmt-settings": stmtSettingsRun,
		"unpaired":      func(t *testing.T) *results.Run { return fakeRun(t, 6) },
		"two-slices":    func(t *testing.T) *results.Run { return fakeRun(t, 2) },
		"failed":        emptyRun,
		"ops":           opsRun,
		"ab":            abRun,
	} {
		t.Run(name, func(t *testing.T) {
			md, err := Markdown(judged(t, mk(t)))
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "testdata/synthetic-"+name+".md", md, *update)
		})
	}
}

// answerOf is the page's answer id ("q-layer", …), failing the test when there is none.
func answerOf(t *testing.T, p *page, id string) answer {
	t.Helper()
	for _, a := range p.Answers {
		if a.ID == id {
			return a
		}
	}
	t.Fatalf("no answer %s", id)
	return answer{}
}

// findingOf is the finding of a's groups whose other variant's library is lib.
func findingOf(t *testing.T, a answer, lang, lib string) finding {
	t.Helper()
	for _, g := range a.Groups {
		for _, f := range g.Findings {
			if f.Other.Lang == lang && f.Other.Library == lib {
				return f
			}
		}
	}
	t.Fatalf("answer %s has no finding of %s %s", a.ID, lang, lib)
	return finding{}
}

func sameRatio(t *testing.T, what string, got estimate, want stats.Estimate) {
	t.Helper()
	if !got.OK || math.Abs(got.Value-want.Value) > 1e-9 || math.Abs(got.Lo-want.Lo) > 1e-9 || math.Abs(got.Hi-want.Hi) > 1e-9 {
		t.Errorf("%s: %.4f [%.4f, %.4f], want the pairs' %.4f [%.4f, %.4f]", what, got.Value, got.Lo, got.Hi, want.Value, want.Lo, want.Hi)
	}
}

// The first screen answers the three questions, in order, each from its findings:
// the ratios are the pairs' Hodges–Lehmann estimates, computed here from the specs.
func TestAnswersAreThePairsEstimates(t *testing.T) {
	p, err := build(judged(t, pairedRun(t)))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range p.Answers {
		ids = append(ids, a.ID)
	}
	if got := strings.Join(ids, " "); got != "q-layer q-stmt q-conn q-pool" {
		t.Fatalf("answers %s, want q-layer q-stmt q-conn q-pool", got)
	}
	layer := answerOf(t, p, "q-layer")
	sameRatio(t, "Beego ORM v2 against database/sql, QPS", findingOf(t, layer, "go", "Beego ORM v2").QPS, expectedRatio(t, 2, 5))
	sameRatio(t, "Beego ORM v2 against database/sql, app CPU", findingOf(t, layer, "go", "Beego ORM v2").CPU, expectedCPURatio(t, 2, 5))
	sameRatio(t, "GORM against database/sql, QPS", findingOf(t, layer, "go", "GORM").QPS, expectedRatio(t, 2, 6))
	sameRatio(t, "Eloquent against PDO, QPS", findingOf(t, layer, "php", "Eloquent").QPS, expectedRatio(t, 10, 12))
	if f := findingOf(t, layer, "go", "GORM"); !f.Reached || f.Comp == nil || len(f.Comp.Pairs) != pairedSlices {
		t.Errorf("GORM's finding: reached %v, %v, want the target reached over %d pairs", f.Reached, f.Comp, pairedSlices)
	}
	stmt := answerOf(t, p, "q-stmt")
	interp := findingOf(t, stmt, "go", "database/sql + go-sql-driver/mysql")
	sameRatio(t, "interpolate against prepare, QPS", interp.QPS, expectedRatio(t, 1, 2))
	if interp.Reached {
		t.Error("the statement comparison is said to have reached the target; the fixture stops it at its budget")
	}
	conn := answerOf(t, p, "q-conn")
	for _, f := range p.findings {
		switch {
		case f.Question == questions.Conn && f.Other.Lang == "go":
			sameRatio(t, "per-request against persistent, QPS", f.QPS, expectedRatio(t, 2, 4))
		case f.Question == questions.Server && f.Other.Layer == "raw":
			sameRatio(t, "PDO under workers against php-fpm, QPS", f.QPS, expectedRatio(t, 10, 13))
		}
	}
	if len(conn.Groups) == 0 {
		t.Error("answer 3 has no findings")
	}
	// The invalid variant is in no finding.
	for _, f := range p.findings {
		if !f.Base.Valid || !f.Other.Valid {
			t.Errorf("a finding of an invalid variant: %s against %s", f.Other.Key, f.Base.Key)
		}
	}
}

// The first screen is short: at most 10 list items before the first table.
func TestFirstScreenIsShort(t *testing.T) {
	md, err := Markdown(judged(t, pairedRun(t)))
	if err != nil {
		t.Fatal(err)
	}
	items := 0
	for _, l := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(l, "|") {
			break
		}
		if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") {
			items++
		}
	}
	if items > 10 {
		t.Errorf("%d list items before the first table, want at most 10", items)
	}
}

// A run made before pairs (results v1: no comparisons) is answered from each side's
// medians: lib-orm's 4025 against raw's 5025 at prepare.
func TestUnpairedRunIsAnsweredFromMedians(t *testing.T) {
	p, err := build(judged(t, fakeRun(t, 6)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range p.findings {
		if f.Paired {
			t.Errorf("%s against %s: paired in a run without pairs", f.Other.Key, f.Base.Key)
		}
		if f.Question == questions.Layer && f.Other.Stmt == "prepare" && math.Abs(f.QPS.Value-4025.0/5025) > 1e-9 {
			t.Errorf("lib-orm against raw: %.4f, want the medians' %.4f", f.QPS.Value, 4025.0/5025)
		}
	}
}

// Profiles get a section of their own, and a run without them none.
func TestProfileSectionOnlyWithProfiles(t *testing.T) {
	has := func(r *results.Run) bool {
		p, err := build(judged(t, r))
		if err != nil {
			t.Fatal(err)
		}
		return p.Profile != nil
	}
	r := pairedRun(t)
	if has(r) {
		t.Error("a run without profiles has a profile section")
	}
	withProfiles(r)
	if !has(r) {
		t.Error("a run with profiles has no profile section")
	}
}

// A run that failed before measuring anything still gets a report, and an HTML one.
func TestReportOfAnEmptyRun(t *testing.T) {
	r := emptyRun(t)
	if _, err := Markdown(judged(t, r)); err != nil {
		t.Fatal(err)
	}
	if _, err := HTML(judged(t, r)); err != nil {
		t.Fatal(err)
	}
}

func emptyRun(t *testing.T) *results.Run {
	r := pairedRun(t)
	r.Status, r.Error, r.Comparisons = "failed", "database did not start", nil
	for _, v := range r.Variants {
		v.Reps = nil
	}
	return r
}

// stmtSettingsRun carries Go's settings in its own terms (matrix.yaml's modes), which
// answers 2 and 3 lead with.
func stmtSettingsRun(t *testing.T) *results.Run {
	r := pairedRun(t)
	r.Langs["go"].Modes = map[string]*results.ModeSetting{
		"interpolate": {Set: "set `interpolateParams=true`", Default: "false", Caveat: "not with SJIS"},
		"persistent":  {Set: "keep idle connections", Default: "2 idle", Caveat: "mind wait_timeout"},
	}
	return r
}

// findings.csv holds the comparisons the report words, as numbers: one row per
// comparison, the same estimates.
func TestFindingsCSVHoldsTheReportsEstimates(t *testing.T) {
	r := pairedRun(t)
	for _, v := range r.Variants { // the server's dials: one per request, per-request's alone
		for i := range v.Reps {
			v.Reps[i].Counts = map[string]float64{units.DBDials: 0}
			if v.Conn == "per-request" {
				v.Reps[i].Counts[units.DBDials] = 1
			}
		}
	}
	b, err := FindingsCSV(judged(t, r))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(r.Comparisons)+1 || strings.Join(rows[0][:4], ",") != "question,base,other,qps_ratio" {
		t.Fatalf("%d rows (want %d comparisons and a head): %q", len(rows), len(r.Comparisons), rows[0])
	}
	perReq := expectedRatio(t, 2, 4) // per-request against persistent, database/sql
	for _, row := range rows[1:] {
		if row[0] == "conn" && strings.Contains(row[2], "layer=raw/stmt=interpolate/conn=per-request") && strings.HasPrefix(row[1], "lang=go/") {
			got, _ := strconv.ParseFloat(row[3], 64)
			if math.Abs(got-perReq.Value) > 1e-6 || row[6] == "" || row[11] != "8" {
				t.Errorf("per-request against persistent: %q, want ratio %v with its verdict and 8 pairs", row, perReq.Value)
			}
			if got := row[len(row)-2:]; got[0] != "0" || got[1] != "1" {
				t.Errorf("dials per request %q, want the persistent pool's 0 and per-request's 1", got)
			}
			return
		}
	}
	t.Errorf("no per-request comparison in %q", rows)
}
