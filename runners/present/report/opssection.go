package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// The section "Beyond one row": the ops besides get (a list, an insert, a
// read-modify-write), each layer against its raw driver at the same op, what a row
// hydrated costs, and the lost-update check of every update variant.

// opsID is the section's anchor.
const opsID = "q-ops"

// opsSection is the section and the sentence the first answer gains to point at it;
// ok is false when the run measured no op but get.
func (d *data) opsSection(fs []finding) (s section, pointer string, ok bool) {
	if !slices.ContainsFunc(d.run.Variants, func(v *results.Variant) bool { return v.Op != "" && v.Fetch == "" }) {
		return section{}, "", false // related rows have a section of their own
	}
	s = section{ID: opsID, Title: "Beyond one row"}
	layer := slices.DeleteFunc(byQuestion(fs, questions.Layer), func(f finding) bool { return f.Other.Fetch != "" })
	s.Intro = []string{"Each op's layers against their raw driver at the same op, server, stmt, conn and pool, measured in the run's " +
		pairsOf(d.run.Settings.Pairing) + " as the answers above are: the ratio of QPS and of app CPU per request, with its " +
		term("95% interval", "wilcoxon-interval") + ". get is the one-row read of the answers; a list asks for 100 rows in id order, " +
		"an insert writes one row, an update is a read-modify-write of one row's counter in one transaction."}
	for _, g := range groupsOf(layer) {
		if of := inGroup(layer, g); slices.ContainsFunc(of, func(f finding) bool { return f.Other.Op != "" }) {
			s.Grids = append(s.Grids, opsGrid(of, groupName(g, layer), d.shownOps()))
		}
	}
	for _, g := range groupsOf(byQuestion(fs, questions.Rows)) {
		rows := inGroup(byQuestion(fs, questions.Rows), g)
		s.Grids = append(s.Grids, d.perRowGrid(rows, groupName(g, rows)))
	}
	s.Grids = append(s.Grids, d.otherOpGrids(fs)...)
	if g := d.textsGrid(fs); g != nil {
		s.Grids = append(s.Grids, *g)
	}
	lost, checked := d.lostUpdatesGrid()
	if checked > 0 {
		s.Grids = append(s.Grids, lost)
	}
	if len(s.Grids) == 0 {
		s.Empty = "No op besides get was measured against its raw driver."
	}
	return s, d.opsPointer(layer), true
}

// shownOps are the ops of the ratio table, in the order the variant with the most ops
// has them (a preset's): get and each op but a list that is some longer list's
// reference (list 10 is there for the cost per row).
func (d *data) shownOps() []*results.Variant {
	byBase := map[string][]*results.Variant{}
	var most []*results.Variant
	for _, v := range d.run.Variants {
		base := strings.TrimSuffix(v.Key, "/op="+v.Op)
		byBase[base] = append(byBase[base], v)
		if len(byBase[base]) > len(most) {
			most = byBase[base]
		}
	}
	var out []*results.Variant
	seen := map[string]bool{}
	for _, v := range append(slices.Clone(most), d.run.Variants...) {
		if !v.DB || v.Fetch != "" || seen[v.Op] || slices.ContainsFunc(d.run.Variants, func(w *results.Variant) bool { return w.Rows > v.Rows && v.Rows > 0 }) {
			continue
		}
		seen[v.Op] = true
		out = append(out, v)
	}
	return out
}

// opTitle is how a table heads an op: "get", "list 100", "insert".
func opTitle(v *results.Variant) string {
	if v.Rows > 0 {
		return fmt.Sprintf("list %d", v.Rows)
	}
	return opName(v)
}

// opsGrid is one group's layers against the raw driver, a column per op, at the
// setting most of its comparisons share.
func opsGrid(fs []finding, name string, ops []*results.Variant) grid {
	at := byKind(atSetting(fs, mostCommon(fs)))
	b := at[0].Base
	g := grid{ID: "t-ops-" + b.Lang + "-" + b.Server, Head: []string{"layer (library, kind)"},
		Caption: fmt.Sprintf("%s: each layer ÷ %s at %s/%s/pool=%d, the same op", name, shortLibrary(b), b.Stmt, b.Conn, b.Pool)}
	for _, op := range ops {
		g.Head = append(g.Head, opTitle(op))
	}
	var rows []string
	where := map[[2]string]finding{}
	for _, f := range at {
		row := rowName(f)
		if !slices.Contains(rows, row) {
			rows = append(rows, row)
		}
		where[[2]string{row, opName(f.Other)}] = f
	}
	for _, row := range rows {
		r := []cell{textCell(row)}
		for _, op := range ops {
			f, ok := where[[2]string{row, opName(op)}]
			if !ok {
				r = append(r, textCell("–"))
				continue
			}
			c := textCell("QPS "+ratioCI(f.QPS)+" "+marks[f.QPS.Verdict], "CPU "+ratioCI(f.CPU)+" "+marks[f.CPU.Verdict], pairsText(f))
			c.Link = "#" + findingID(f)
			r = append(r, c)
		}
		g.Rows = append(g.Rows, r)
	}
	g.Notes = []string{"Each cell: QPS and app CPU per request of the layer ÷ the raw driver's at the same op. " + markLegend(at[0].Pairing)}
	return g
}

// perRowGrid is what one row hydrated costs each layer of a group: the longer list
// less the shorter, pair by pair, over the rows between them.
func (d *data) perRowGrid(fs []finding, name string) grid {
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b finding) int { return rowRank(a, questions.Rows) - rowRank(b, questions.Rows) })
	f0 := fs[0]
	n := f0.Other.Rows - f0.Base.Rows
	g := grid{ID: "t-rows-" + f0.Other.Lang + "-" + f0.Other.Server,
		Caption: fmt.Sprintf("%s: the cost of a row hydrated, from list %d less list %d over the %d rows between them", name, f0.Other.Rows, f0.Base.Rows, n),
		Head:    []string{"layer (library)", "app CPU per row", "than the raw driver", "allocations per row", "bytes per row", "pairs"}}
	var raw float64 = math.NaN()
	for _, f := range fs {
		cpu, okCPU := d.perRow(f, units.AppCPU)
		if f.Other.Kind == "raw" && f.Other.Layer == d.run.BaselineOf(f.Other) && okCPU {
			raw = cpu.Value
		}
		over := "–"
		if okCPU && !math.IsNaN(raw) && f.Other.Layer != d.run.BaselineOf(f.Other) {
			over = units.MicrosDelta(cpu.Value - raw)
		}
		r := []cell{textCell(layerName(f.Other)), d.perRowCell(f, units.AppCPU, 1e6, "µs"), textCell(over),
			d.perRowCell(f, units.Allocs, 1, ""), d.perRowCell(f, units.AllocBytes, 1, "B"), textCell(pairsText(f))}
		r[1].Link = "#" + findingID(f)
		g.Rows = append(g.Rows, r)
	}
	g.Notes = []string{fmt.Sprintf("Per row: each pair's list %d less its list %d (the two measured in the same block), the %s of those differences "+
		"with its %s, divided by %d rows. The interval is from the pairs, not from the two medians' intervals, so the machine's drift between "+
		"blocks cancels in it. Than the raw driver: the layer's estimate less the raw driver's. Allocations and bytes: Go's runtime/metrics "+
		"heap allocation counters of the target (not measured for PHP).", f0.Other.Rows, f0.Base.Rows, term("Hodges–Lehmann estimate", "hodges-lehmann"), term("95% interval", "wilcoxon-interval"), n)}
	return g
}

// perRow is a rows finding's cost per row in unit: from the pairs' differences when
// paired, else the medians' difference without an interval.
func (d *data) perRow(f finding, unit string) (stats.Estimate, bool) {
	n := float64(f.Other.Rows - f.Base.Rows)
	if f.Paired && f.Comp != nil {
		e, ok := d.judged.Comparisons[f.Comp].Shifts[unit]
		return e.Per(n), ok
	}
	a, okA := d.median(f.Base, unit)
	b, okB := d.median(f.Other, unit)
	return stats.NoInterval((b - a) / n), okA && okB
}

func (d *data) perRowCell(f finding, unit string, factor float64, suffix string) cell {
	e, ok := d.perRow(f, unit)
	if !ok {
		return textCell("–")
	}
	return numCell(e.Value*factor, units.WithInterval(e.Value*factor, e.Lo*factor, e.Hi*factor, suffix))
}

// otherOpGrids are the layer comparisons the ratio table leaves out, as question 1's
// tables show them: an op measured at several settings (update at every stmt mode).
// An op's other questions are in the appendix, and in the answers when get has none.
func (d *data) otherOpGrids(fs []finding) []grid {
	var out []grid
	for _, op := range d.shownOps() {
		if op.Op == "" {
			continue
		}
		layer := slices.DeleteFunc(byQuestion(fs, questions.Layer), func(f finding) bool { return f.Other.Op != op.Op })
		if len(groupsOf(layer)) == countSettings(layer) {
			continue // every one of them is in the ratio table
		}
		for _, g := range comparisonGrids(layer, questions.Layer) {
			g.ID += "-" + op.Op
			g.Caption = opTitle(op) + " — " + g.Caption
			out = append(out, g)
		}
	}
	return out
}

// countSettings counts the distinct group and setting pairs of fs.
func countSettings(fs []finding) int {
	seen := map[string]bool{}
	for _, f := range fs {
		seen[fmt.Sprint(groupOf(f.Other), setting(f.Other))] = true
	}
	return len(seen)
}

// lostUpdatesGrid is every update variant's lost-update check, valid or not, and how
// many variants it checked.
func (d *data) lostUpdatesGrid() (grid, int) {
	g := grid{ID: "t-lost-updates", Caption: fmt.Sprintf("Lost updates at %d clients: the visits the table gained against each update variant's successful requests, over its measured slices", d.run.Settings.Connections),
		Head: []string{"variant", "successful updates", "lost", "verdict"}}
	n := 0
	for _, v := range d.run.Variants {
		lost, ok, checked := v.LostUpdates()
		if !checked {
			continue
		}
		n++
		verdict := "none lost"
		switch {
		case lost > 0:
			verdict = "LOST UPDATES: invalid, not measured as fast or slow"
		case lost < 0:
			verdict = "more visits than successes: invalid"
		case !v.Valid:
			verdict = "none lost; invalid: " + v.InvalidReason
		}
		g.Rows = append(g.Rows, []cell{textCell(label(v)), numCell(float64(ok), fmt.Sprint(ok)), numCell(float64(lost), fmt.Sprint(lost)), textCell(verdict)})
	}
	g.Notes = []string{"After every measured slice (or block) of an update variant, the sum of the fixture rows' visits must have grown by exactly " +
		"the number of its 2xx answers: each is one increment committed. A read-modify-write without a lock loses increments when two " +
		"clients visit the same user at once; such a variant is invalid (Invalid variants, in the appendix)."}
	return g, n
}

// opsPointer is answer 1's one added sentence: what a list of the most rows keeps of
// the raw driver's throughput per group, lost updates, and where the rest is.
func (d *data) opsPointer(layer []finding) string {
	longest := 0
	beyond := false // an op besides get and its working sets: a list, an insert, an update
	for _, v := range d.run.Variants {
		if v.Fetch == "" { // a page of users with their orders is the related rows' section's
			longest = max(longest, v.Rows)
		}
		beyond = beyond || (v.Op != "" && v.Op != "get" && v.Texts == 0 && v.Fetch == "")
	}
	if !beyond { // the working sets are answer 2's (textsPointer)
		return ""
	}
	var parts []string
	for _, g := range groupsOf(layer) {
		of := slices.DeleteFunc(inGroup(layer, g), func(f finding) bool { return f.Other.Rows != longest || longest == 0 })
		if len(of) == 0 {
			continue
		}
		slices.SortFunc(of, func(a, b finding) int { return cmpFloat(a.QPS.Value, b.QPS.Value) })
		r := units.Ratio(of[0].QPS.Value)
		if len(of) > 1 {
			r += " to " + units.Ratio(of[len(of)-1].QPS.Value)
		}
		parts = append(parts, langName(g.lang)+" "+r)
	}
	lost := 0
	for _, v := range d.run.Variants {
		if n, _, _ := v.LostUpdates(); n != 0 {
			lost++
		}
	}
	s := "Beyond one row (below): lists, inserts and updates"
	if len(parts) > 0 {
		s = fmt.Sprintf("Beyond one row (below): on a list of %d rows the layers keep %s of the raw driver's throughput", longest, strings.Join(parts, ", "))
	}
	if lost == 0 {
		return s + fmt.Sprintf("; no layer lost an update at %d clients.", d.run.Settings.Connections)
	}
	return s + fmt.Sprintf("; %s lost updates at %d clients.", units.Count(lost, "variant"), d.run.Settings.Connections)
}
