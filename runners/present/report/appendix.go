package report

import (
	"fmt"
	"math"
	"strings"

	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// The appendix says each comparison in full: what was compared with what, each ratio
// with its interval, method and decision, and the differences beside them.

// appendixGroup is a question's sentences.
type appendixGroup struct {
	Title string
	Items []appendixItem
}

type appendixItem struct {
	ID, Text string
}

func (d *data) appendixGroups(fs []finding) []appendixGroup {
	titles := []struct{ q, title string }{
		{questions.Layer, "Layers against the raw driver"}, {questions.Stmt, "Statement modes against prepare"},
		{questions.Conn, "Per-request connections against persistent ones"}, {questions.Server, "Servers against the language's first"},
		{questions.Rows, "Lists against the same variant's shortest list"}, {questions.DB, "Each variant on a second database server against itself on MariaDB"},
		{questions.Texts, "Statement working sets against get's one text"},
		{questions.Shipped, "Each layer as its library ships it against the tuned modes"},
		{questions.Fetch, "Related rows: each form against the raw driver's JOIN"},
		{questions.Lazy, "Related rows: eager or joined against the same layer's lazy loading"},
		{questions.Rev, "Revision B against revision A"},
	}
	var out []appendixGroup
	for _, t := range titles {
		g := appendixGroup{Title: t.title}
		for _, f := range byQuestion(fs, t.q) {
			g.Items = append(g.Items, appendixItem{ID: findingID(f), Text: d.findingSentence(f)})
		}
		if len(g.Items) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// findingSentence says one comparison in full.
func (d *data) findingSentence(f finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s against %s (%s): ", sideName(f.Other, f.Question), sideName(f.Base, f.Question), sharedBy(f.Question, f.Other))
	fmt.Fprintf(&b, "QPS %s, app CPU per request %s", estimateWords(f.QPS, f), estimateWords(f.CPU, f))
	if !math.IsNaN(f.ExtraCPU) {
		a, _ := d.shown(f.Base, units.AppCPU)
		fmt.Fprintf(&b, "; %s app CPU per request (%.1f against %.1f µs, medians of all slices of each side", units.MicrosDelta(f.ExtraCPU), 1e6*(a+f.ExtraCPU), 1e6*a)
		if f.Paired && a > 0 { // the estimate above is of the pairs: say what the medians give
			fmt.Fprintf(&b, ", whose ratio is %s", units.Ratio((a+f.ExtraCPU)/a))
		}
		b.WriteString(")")
	}
	if !math.IsNaN(f.ExtraAllocs) {
		fmt.Fprintf(&b, "; %s allocations and %s allocated per request", units.Signed(fmt.Sprintf("%.0f", f.ExtraAllocs)), signedBytes(f.ExtraBytes))
	}
	fmt.Fprintf(&b, "; commands per request: %s against %s", commandsText(f.Other), commandsText(f.Base))
	if f.Paired {
		if f.Reached {
			b.WriteString("; precision target reached")
		} else {
			b.WriteString("; precision target not reached before the budget ended")
		}
	}
	b.WriteString(".")
	return b.String()
}

// sideName is what a side is called in a comparison: its value of the question's key,
// with the library for a layer.
func sideName(v *results.Variant, q string) string {
	switch q {
	case questions.Layer:
		return fmt.Sprintf("%s (%s)", v.Layer, library(v))
	case questions.Stmt:
		return "stmt=" + v.Stmt
	case questions.Conn:
		return "conn=" + v.Conn
	case questions.Server:
		return serverName(v.Server)
	case questions.Rev:
		return "rev=" + v.Rev
	case questions.DB:
		return dbName(v)
	case questions.Rows:
		return fmt.Sprintf("op=%s (%s)", v.Op, units.Count(v.Rows, "row"))
	case questions.Shipped:
		return v.Stmt + ", " + v.Conn
	case questions.Fetch:
		return fmt.Sprintf("%s (%s), op=%s", v.Layer, library(v), v.Op)
	case questions.Lazy:
		return "op=" + v.Op
	case questions.Texts:
		if v.Texts == 0 { // get, through its one text
			return "op=get (1 statement text)"
		}
		return fmt.Sprintf("op=%s (%s)", v.Op, units.Count(v.Texts, "statement text"))
	}
	return v.Key
}

// sharedBy names what the two sides share: "Go, net/http, interpolate, persistent, pool 64".
func sharedBy(q string, v *results.Variant) string {
	parts := []string{langName(v.Lang)}
	if q != questions.Server {
		parts = append(parts, serverName(v.Server))
	}
	if q != questions.Layer && q != questions.Fetch {
		parts = append(parts, v.Layer)
	}
	if q != questions.Stmt && q != questions.Shipped {
		parts = append(parts, v.Stmt)
	}
	if q != questions.Conn && q != questions.Shipped {
		parts = append(parts, v.Conn)
	}
	parts = append(parts, fmt.Sprintf("pool %d", v.Pool))
	if q != questions.Rows && q != questions.Texts && q != questions.Fetch && q != questions.Lazy && v.Op != "" {
		parts = append(parts, "op="+v.Op)
	}
	if q != questions.DB && v.Database != "" {
		parts = append(parts, dbName(v))
	}
	return strings.Join(parts, ", ")
}

// estimateWords is "0.95× [0.93, 0.97] (different: Hodges–Lehmann over 8 pairs, 95.3%)".
func estimateWords(e estimate, f finding) string {
	if !e.OK {
		return "not measured"
	}
	method := fmt.Sprintf("Hodges–Lehmann over %s", units.Count(e.N, "pair"))
	if !f.Paired {
		method = fmt.Sprintf("ratio of unpaired medians, bootstrap interval, n = %d", e.N)
	}
	if e.Confidence > 0 {
		method += fmt.Sprintf(", %.1f%% coverage", 100*e.Confidence)
	}
	return fmt.Sprintf("%s (%s: %s)", ratioCI(e), e.Verdict, method)
}

func commandsText(v *results.Variant) string {
	if !v.DB {
		return "nothing"
	}
	if v.Roundtrips == nil {
		return "not captured"
	}
	cmds, trips := v.Roundtrips.Commands()
	return fmt.Sprintf("%s (%s, %s)", commandList(v.Roundtrips), units.Count(cmds, "command"), units.Count(trips, "round trip"))
}
