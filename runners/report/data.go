// Package report turns a run's results.json into report.md and report.html: the
// three answers on the first screen, each question's section with its table and
// charts, the ops and profile sections, the appendix of every
// comparison in full, and the pages of a sweep. Every number comes from package stats
// (benchstat's median, 95% interval and U test); where the sample is too small for an
// interval or a test, the text says so beside the number. Package chart draws the
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
//   - sweep pages: sweeppage.go; the output: markdown.go, html.go, write.go.
package report

import (
	"bytes"
	"fmt"
	"strings"

	"dbbench/runners/benchfile"
	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"

	"golang.org/x/perf/benchmath"
)

// data is a run with the samples of its valid variants, read back from the same
// bench.txt lines `benchstat` reads, so report and benchstat agree.
type data struct {
	run     *results.Run
	samples *benchfile.File
	valid   []*results.Variant
	invalid []*results.Variant
}

func load(r *results.Run) (*data, error) {
	txt, err := benchfile.FromRun(r)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	f, err := benchfile.Read(bytes.NewReader(txt), "results.json")
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	d := &data{run: r, samples: f}
	for _, v := range r.Variants {
		switch {
		case !v.Valid:
			d.invalid = append(d.invalid, v)
		case len(v.Reps) > 0:
			d.valid = append(d.valid, v)
		}
	}
	return d, nil
}

// sample returns v's values in unit, nil when not measured.
func (d *data) sample(v *results.Variant, unit string) []float64 {
	return d.samples.Sample(v.Name, unit)
}

// summary summarizes v in unit; ok is false when the unit was not measured.
func (d *data) summary(v *results.Variant, unit string) (stats.Summary, bool) {
	xs := d.sample(v, unit)
	if len(xs) == 0 {
		return stats.Summary{}, false
	}
	s, err := stats.Summarize(xs, unit)
	if err != nil {
		return stats.Summary{}, false // values were checked when bench.txt was written
	}
	return s, true
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
