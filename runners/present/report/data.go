// Package report turns a run, judged, into report.md and report.html: the three
// answers on the first screen, each question's section with its table and charts, the
// ops and profile sections, and the appendix of every comparison in full. Its estimates come from package judge,
// which computed them once with package stats (benchstat's median, 95% interval and U
// test); the report adds only arithmetic on what it prints (a difference of two medians
// as shown, a cost per row). Where the sample is too small for an interval or a test,
// the text says so beside the number. Package chart draws the
// charts; this package says what they show. Two runs are compared by package compare.
//
// Where each part of report.md comes from:
//   - the first screen's answers: firstscreen.go, answer.go; the pool answer:
//     poolanswer.go; a run of two revisions: abpage.go, abevidence.go;
//   - each question's section: page.go, its tables tables.go, its charts
//     questioncharts.go, the figures behind them finding.go;
//   - the sections "Beyond one row" (opssection.go), profiles (profilesection.go,
//     profilescale.go) and rounds (rounds.go); the hello servers side by side in
//     question 3's section (servercontrast.go);
//   - every variant's tables and charts: varianttables.go, variantcharts.go;
//   - the run's line and alerts: runinfo.go; the appendix: appendix.go;
//   - the output: markdown.go, html.go, write.go (the head, style and tables every page
//     shares are runners/present/doc's, which also makes the sweeps' and the soak's pages).
package report

import (
	"fmt"
	"strings"

	"dbbench/runners/judge"
	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"

	"golang.org/x/perf/benchmath"
)

// data is a run judged (package judge computed every figure), with its valid and
// invalid variants at hand.
type data struct {
	run     *results.Run
	judged  *judge.Run
	valid   []*results.Variant
	invalid []*results.Variant
}

func load(j *judge.Run) *data {
	return &data{run: j.Results, judged: j, valid: j.Valid, invalid: j.Invalid}
}

// summary is v's summary in unit; ok is false when the unit was not measured.
func (d *data) summary(v *results.Variant, unit string) (stats.Summary, bool) {
	return d.judged.Summary(v, unit)
}

// label is a short name of a variant for tables and charts, with its revision in a
// run of two.
func label(v *results.Variant) string {
	rev := ""
	if v.Rev != "" {
		rev = "/rev=" + v.Rev
	}
	if !v.DB {
		return fmt.Sprintf("%s/%s/%s%s", v.Lang, v.Server, v.Layer, rev)
	}
	op := ""
	if v.Op != "" {
		op = "/op=" + v.Op
	}
	if v.Database != "" {
		op += "/db=" + v.Database
	}
	return fmt.Sprintf("%s/%s/%s/%s/%s/pool=%d%s%s", v.Lang, v.Server, v.Layer, v.Stmt, v.Conn, v.Pool, op, rev)
}

// opName is v's op, get when it names none.
func opName(v *results.Variant) string {
	if v.Op == "" {
		return "get"
	}
	return v.Op
}

// scale shows a summary in a display unit: factor multiplies seconds into ms or µs.
// The ± is benchstat's (the larger side of the interval, in percent), "± ∞" without
// an interval; note is appended as is (a footnote mark).
func scaled(s stats.Summary, factor float64, digits int, note string) string {
	b := benchmath.Summary{Center: s.Center, Lo: s.Lo, Hi: s.Hi}
	out := fmt.Sprintf("%.*f", digits, s.Center*factor)
	if !stats.Exact(s.Unit) {
		out += " ± " + b.PctRangeString()
	}
	return out + note
}

// commandList renders a capture's commands per request, "Prepare 1, Execute 1, Close stmt 1".
func commandList(rt *results.Roundtrips) string {
	var parts []string
	for _, k := range rt.Speaks().Ordered(rt.PerCommand()) {
		if n := rt.PerCommand()[k]; n != 0 {
			parts = append(parts, fmt.Sprintf("%s %s", k, units.Number(n)))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
