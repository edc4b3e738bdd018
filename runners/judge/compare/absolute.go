package compare

import (
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// absoluteUnits are the figures that move with the machine's speed.
var absoluteUnits = []string{units.QPS, units.P50, units.P99, units.AppCPU, units.DBCPU}

// latency reports whether unit is a latency percentile, whose normalisation is rough.
func latency(unit string) bool { return unit == units.P50 || unit == units.P99 }

// absoluteRows compares each absolute figure of each variant valid in both runs. With a
// yardstick in both runs a figure is judged against what the new machine alone would
// have made of the old figure: a rate times the speed ratio s, a cost per request (CPU,
// latency) divided by it; the change's interval is divided by the yardstick's
// (quotient), so the yardstick's own uncertainty widens it. Without one, as it is.
// Then each interval is widened by the between-run spread of its unit (spread.go).
func absoluteRows(p pairing, n norm, margin float64, res *Result) []Row {
	var cands []absCand
	for _, k := range p.keys {
		o, nv := p.old[k], p.new[k]
		for _, unit := range absoluteUnits {
			if unit == units.DBCPU && !o.DB {
				continue // a variant without a database costs the database nothing to judge
			}
			a, b := values(o, unit), values(nv, unit)
			if len(a) == 0 || len(b) == 0 {
				continue // not measured (CPU of a server on another host)
			}
			e, err := stats.TwoSampleRatio(a, b)
			if err != nil {
				continue // a figure of 0 has no relative change
			}
			cands = append(cands, absCand{k, unit, !o.DB, stats.Median(a), stats.Median(b), e, normalise(e, unit, n)})
		}
	}
	spread, few := betweenRunSpread(cands, res)
	res.Yardstick.Hello = hellos(p, n, margin, spread[units.QPS])
	if note := helloNote(res.Yardstick.Hello, n); note != "" {
		res.Notes = append(res.Notes, note)
	}
	hello := helloCannotTell(res.Yardstick.Hello, n)
	res.Yardstick.Contradicted = len(hello) > 0
	res.CannotTell = append(res.CannotTell, absoluteCannotTell(res, n)...)
	res.CannotTell = append(res.CannotTell, hello...)
	res.CannotTell = append(res.CannotTell, fewCannotTell(Absolute, few, "variants")...)
	rows := make([]Row, 0, len(cands))
	for _, c := range cands {
		rows = append(rows, absoluteRow(c, n, margin, spread[c.unit], res.cannotTell(Absolute, c.unit, "")))
	}
	return rows
}

// absCand is one absolute figure of one variant, before its verdict.
type absCand struct {
	key, unit    string
	hello        bool // a variant without a database: the yardstick's check
	old, new     float64
	asIs, judged stats.Estimate // judged: relative to the yardstick when there is one
}

// normalise is asIs relative to what the machine's speed alone explains.
func normalise(asIs stats.Estimate, unit string, n norm) stats.Estimate {
	if !n.on {
		return asIs
	}
	expected := n.speed // a rate moves with the speed
	if units.Better(unit) == units.Lower {
		expected = n.speed.Inverse() // a cost per request moves against it
	}
	return quotient(asIs, expected)
}

// absoluteRow is c's row; cannot: its unit cannot be judged (canttell.go), so it has
// no verdict and does not count for the gate.
func absoluteRow(c absCand, n norm, margin, spread float64, cannot bool) Row {
	dir := units.Better(c.unit)
	judged := widen(c.judged, spread)
	row := Row{
		Kind: Absolute, Variant: c.key, Unit: c.unit, Old: Num(c.old), New: Num(c.new),
		AsIs: change(c.asIs), Judged: change(judged), Verdict: judge(judged, dir, margin),
	}
	row.hello = c.hello
	narrow := judge(c.judged, dir, margin)
	row.Explained = !cannot && n.on && judge(c.asIs, dir, margin) != Unchanged && narrow == Unchanged
	if !cannot && narrow != Unchanged && row.Verdict == Unchanged {
		row.Labels = append(row.Labels, WithinSpread)
	}
	switch {
	case !n.on:
		row.Labels = append(row.Labels, NotNormalised)
	case n.moved:
		row.Labels = append(row.Labels, EnvironmentChanged)
		if latency(c.unit) {
			row.Labels = append(row.Labels, LatencyApprox)
		}
	}
	if cannot {
		row.Verdict = CannotTellVerdict
		return row
	}
	// A hello variant checks the yardstick and holds no database code; a change of the
	// HTTP stack it measures shows in every variant of its server, which are gated.
	if c.hello && row.Verdict != Unchanged {
		row.Labels = append(row.Labels, HelloNotGated)
	}
	row.Gate = !c.hello && row.Verdict == Regressed
	return row
}
