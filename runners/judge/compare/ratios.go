package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"dbbench/runners/judge/findings"
	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// ratioUnits are the figures of a comparison the report's answers rest on.
var ratioUnits = []string{units.QPS, units.AppCPU}

// comparison is one pair of variants of a run, with how its ratio is estimated.
type comparison struct {
	question, base, other string
	measured              *results.Comparison // nil: not measured as pairs
}

// comparisons are the run's measured pairs, or, for a run made before pairing, the
// pairs package questions finds among its valid variants (estimated unpaired).
func comparisons(r *results.Run, valid map[string]*results.Variant) map[[3]string]comparison {
	out := map[[3]string]comparison{}
	if len(r.Comparisons) > 0 {
		for _, c := range r.Comparisons {
			out[[3]string{c.Question, c.Base, c.Other}] = comparison{c.Question, c.Base, c.Other, c}
		}
		return out
	}
	for _, p := range questions.Pairs(r, func(v *results.Variant) bool { return valid[v.Key] != nil }) {
		out[[3]string{p.Question, p.Base.Key, p.Other.Key}] = comparison{p.Question, p.Base.Key, p.Other.Key, nil}
	}
	return out
}

// ratio estimates Other/Base in unit within run r.
func (c comparison) ratio(r *results.Run, valid map[string]*results.Variant, unit string) (stats.Estimate, error) {
	if c.measured != nil {
		e := findings.In(r, c.measured, unit) // as the run and its report judged it
		if e == nil {
			return stats.Estimate{}, fmt.Errorf("no pair measured %s", unit)
		}
		return e.Estimate, nil
	}
	base, other := valid[c.base], valid[c.other]
	if base == nil || other == nil {
		return stats.Estimate{}, fmt.Errorf("a side is not valid")
	}
	return stats.TwoSampleRatio(values(base, unit), values(other, unit))
}

// ratioRows compares each comparison present in both runs, as it is: the ratio of two
// variants measured in the same run carries no machine speed. Changed only when the
// change, its interval the two runs' (quotient) widened by the between-run spread of
// the comparisons (judgeRatios), lies beyond the noise.
func ratioRows(old, new *results.Run, p pairing, margin float64, res *Result) []Row {
	oc, nc := comparisons(old, p.old), comparisons(new, p.new)
	if !res.Old.Paired && len(oc) > 0 {
		res.Notes = append(res.Notes, say("unpaired", map[string]any{"Side": "old", "Label": Unpaired}))
	}
	if !res.New.Paired && len(nc) > 0 {
		res.Notes = append(res.Notes, say("unpaired", map[string]any{"Side": "new", "Label": Unpaired}))
	}
	var rows []Row
	var qs []stats.Estimate
	for _, other := range p.keys {
		for _, key := range sortedKeys(oc, other) {
			o, n := oc[key], nc[key]
			if n.other == "" || p.old[o.base] == nil || p.new[o.base] == nil {
				continue // not in the new run, or its reference is not valid in both
			}
			for _, unit := range ratioUnits {
				row, q, ok := ratioRow(old, new, p, o, n, unit)
				if ok {
					rows, qs = append(rows, row), append(qs, q)
				}
			}
		}
	}
	judgeRatios(rows, qs, margin, res)
	return rows
}

// judgeRatios gives each ratio row its verdict, its change q widened by the between-run
// spread of its unit. A within-run ratio is free of the machine's speed, not of the run:
// compare A/A on fresh clones of one commit found the same ratio steady within each run
// and apart between runs, by more than either run's interval (runners/judge/compare/README.md,
// "The between-run spread", has the figures).
func judgeRatios(rows []Row, qs []stats.Estimate, margin float64, res *Result) {
	byUnit := map[string][]float64{}
	for i, row := range rows {
		byUnit[row.Unit] = append(byUnit[row.Unit], math.Log(qs[i].Value))
	}
	tau, shown, few := spreadOf(byUnit, ratioUnits)
	res.RatioSpread = shown
	// A ratio is free of the machine's speed, not of its kind: across a kernel change
	// Go's per-request over persistent req/s moved −11% [−14%, −4%] on intervals from
	// inside each run (README.md, "Cannot tell"). Without τ it is not judged.
	res.CannotTell = append(res.CannotTell, fewCannotTell(Ratio, few, "comparisons")...)
	res.CannotTell = append(res.CannotTell, ratioCannotTell(res)...)
	for i := range rows {
		row, dir := &rows[i], units.Better(rows[i].Unit)
		judged := widen(qs[i], tau[row.Unit])
		row.Judged, row.Verdict = change(judged), judge(judged, dir, margin)
		if res.cannotTell(Ratio, row.Unit, row.Question) {
			row.Verdict = CannotTellVerdict
			continue
		}
		if judge(qs[i], dir, margin) != Unchanged && row.Verdict == Unchanged {
			row.Labels = append(row.Labels, WithinSpread)
		}
		row.Gate = row.Verdict == Regressed
	}
}

// ratioRow is the row of one comparison in unit, before its verdict, and its change q:
// new over old, its interval the quotient's (the two runs' intervals do not overlap
// when it excludes 1).
func ratioRow(old, new *results.Run, p pairing, o, n comparison, unit string) (Row, stats.Estimate, bool) {
	oe, err1 := o.ratio(old, p.old, unit)
	ne, err2 := n.ratio(new, p.new, unit)
	if err1 != nil || err2 != nil {
		return Row{}, stats.Estimate{}, false // the unit was not measured (CPU of a remote target)
	}
	q := quotient(ne, oe)
	row := Row{
		Kind: Ratio, Variant: o.other, Question: o.question, Versus: o.base, Unit: unit,
		Old: Num(oe.Value), New: Num(ne.Value), OldRatio: &oe, NewRatio: &ne, AsIs: change(q),
	}
	switch {
	case o.measured == nil && n.measured == nil:
		row.Labels = append(row.Labels, Unpaired)
	case o.measured == nil:
		row.Labels = append(row.Labels, Unpaired+" (old run)")
	case n.measured == nil:
		row.Labels = append(row.Labels, Unpaired+" (new run)")
	}
	for _, w := range oe.Warnings {
		row.Warnings = append(row.Warnings, "old: "+w)
	}
	for _, w := range ne.Warnings {
		row.Warnings = append(row.Warnings, "new: "+w)
	}
	return row, q, true
}

// sortedKeys are the comparisons of cs whose Other is other, by question in the order
// of package questions, then by reference.
func sortedKeys(cs map[[3]string]comparison, other string) [][3]string {
	var out [][3]string
	for k := range cs {
		if k[2] == other {
			out = append(out, k)
		}
	}
	order := func(q string) int {
		i := slices.Index([]string{questions.Layer, questions.Stmt, questions.Conn, questions.Server}, q)
		if i < 0 {
			return 99
		}
		return i
	}
	slices.SortFunc(out, func(a, b [3]string) int {
		if c := cmp.Compare(order(a[0]), order(b[0])); c != 0 {
			return c
		}
		return cmp.Compare(a[0]+" "+a[1], b[0]+" "+b[1])
	})
	return out
}
