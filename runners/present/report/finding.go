package report

import (
	"math"
	"slices"

	"dbbench/runners/results"
	"dbbench/runners/units"
)

// finding is one comparison answered: Other against Base, which differ in Question's
// key, with the ratios of QPS and app CPU per request and the differences in what does
// not depend on the machine's speed.
type finding struct {
	Question    string // questions.Layer, Stmt, Conn, Server
	Base, Other *results.Variant
	Paired      bool                // from pairs of adjacent slices; false: from each side's median
	Comp        *results.Comparison // the pairs, when Paired
	Reached     bool                // the run's precision target (paired only)
	Pairing     *results.Pairing    // how the pairs were measured; nil: measured without pairs
	QPS, CPU    estimate
	// Extra app CPU per request (seconds), allocations and bytes allocated per request
	// (Go), Other's median minus Base's; NaN where a side lacks the figure.
	ExtraCPU, ExtraAllocs, ExtraBytes float64
}

// estimate is a ratio judged, as the run's findings give it; OK is false when the
// figure was not measured on both sides.
type estimate struct {
	results.Judged
	OK bool
}

// findings answers every comparison of the run: from its pairs when it has any, else
// from unpaired medians over the pairs package questions defines.
func (d *data) findings() []finding {
	var out []finding
	if len(d.run.Comparisons) > 0 {
		for _, c := range d.run.Comparisons {
			b, o := d.validVariant(c.Base), d.validVariant(c.Other)
			if b == nil || o == nil {
				continue
			}
			f := finding{Question: c.Question, Base: b, Other: o, Paired: true, Comp: c, Reached: c.Reached, Pairing: d.run.Settings.Pairing}
			judged := d.judged.Comparisons[c].Finding
			f.QPS, f.CPU = stored(judged.QPS), stored(judged.AppCPU)
			out = append(out, d.withCounts(f))
		}
	} else {
		for _, p := range d.judged.Unpaired {
			f := finding{Question: p.Question, Base: p.Base, Other: p.Other, QPS: stored(p.QPS), CPU: stored(p.AppCPU)}
			out = append(out, d.withCounts(f))
		}
	}
	order := func(v *results.Variant) int { return slices.Index(d.run.Variants, v) }
	slices.SortStableFunc(out, func(a, b finding) int {
		if a.Other == b.Other {
			return order(a.Base) - order(b.Base)
		}
		return order(a.Other) - order(b.Other)
	})
	return out
}

// validVariant is the valid, measured variant with key, nil if there is none.
func (d *data) validVariant(key string) *results.Variant {
	for _, v := range d.valid {
		if v.Key == key {
			return v
		}
	}
	return nil
}

// stored is a finding's estimate as the report's tables take it; nil: not measured.
func stored(e *results.Judged) estimate {
	if e == nil {
		return estimate{}
	}
	return estimate{Judged: *e, OK: true}
}

// withCounts fills in the differences of medians: app CPU, allocations, bytes, each of
// the medians as the variant tables print them, so that "+47 allocs" is 105 − 58.
func (d *data) withCounts(f finding) finding {
	diff := func(unit string) float64 {
		a, okA := d.shown(f.Base, unit)
		b, okB := d.shown(f.Other, unit)
		if !okA || !okB {
			return math.NaN()
		}
		return b - a
	}
	f.ExtraCPU, f.ExtraAllocs, f.ExtraBytes = diff(units.AppCPU), diff(units.Allocs), diff(units.AllocBytes)
	return f
}

// median is v's median in unit over its slices.
func (d *data) median(v *results.Variant, unit string) (float64, bool) {
	s, ok := d.summary(v, unit)
	return s.Center, ok
}

// shown is v's median in unit rounded as the variant tables print it.
func (d *data) shown(v *results.Variant, unit string) (float64, bool) {
	m, ok := d.median(v, unit)
	if !ok {
		return 0, false
	}
	for _, c := range slices.Concat(timeColumns, countColumns) {
		if c.unit == unit {
			p := math.Pow10(c.digits) * c.factor
			return math.Round(m*p) / p, true
		}
	}
	return m, true
}

// commands are v's MySQL commands per request.
func commands(v *results.Variant) (float64, bool) {
	if !v.DB {
		return 0, true
	}
	if v.Roundtrips == nil {
		return 0, false
	}
	c, _ := v.Roundtrips.Commands()
	return c, true
}

// atGet keeps the findings of get, the op there was before ops.
func atGet(fs []finding) []finding {
	var out []finding
	for _, f := range fs {
		if f.Other.Op == "" {
			out = append(out, f)
		}
	}
	return out
}

// byQuestion keeps the findings of one question.
func byQuestion(fs []finding, q string) []finding {
	var out []finding
	for _, f := range fs {
		if f.Question == q {
			out = append(out, f)
		}
	}
	return out
}
