package sweep

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/present/doc"
	"dbbench/runners/results"
	"dbbench/runners/saturation"
	"dbbench/runners/units"
)

// RTTPage builds the rtt sweep's report: how the statement modes diverge as the
// database moves away, closed loop (QPS, p50) and open loop at a fixed rate (p50, p99).
func RTTPage(plan *RTTPlan, points []RTTPoint) *doc.Page {
	p := &doc.Page{Title: "dbbench network-distance sweep"}
	var delays []time.Duration
	for _, us := range plan.DelaysMicros {
		delays = append(delays, time.Duration(us)*time.Microsecond)
	}
	s := points[0].Run.Settings
	p.Intro = []string{
		say("rtt-proxy", map[string]any{"Delays": durations(delays), "Proxy": cmp.Or(plan.Proxy, "toxiproxy")}),
		say("rtt-loads", map[string]any{"Concurrency": plan.Concurrency, "Rate": plan.Rate, "Reps": s.Reps, "Duration": s.Duration, "Warmup": s.Warmup}),
		say("rtt-prediction", nil),
	}
	byMode := map[string]map[time.Duration]pointFigures{Closed: {}, Open: {}}
	for _, pt := range points {
		byMode[pt.Mode][pt.Delay] = pt.Figures
	}
	keys, trips := variantOrder(points)
	if f, ok := findings(byMode, delays, keys); ok {
		// The findings lead the page, their reading guide first under them.
		p.Answer = f.Paragraphs[1:]
		p.Intro = append([]string{f.Paragraphs[0]}, p.Intro...)
	}

	metric := func(mode, unit, fig string) (doc.Table, doc.LineChart) {
		t := doc.Table{Head: []string{"variant", "round trips/op"}}
		for _, d := range delays {
			t.Head = append(t.Head, units.DelayMillis(d))
		}
		c := doc.LineChart{XLabel: "added delay each way (ms)", YLabel: unit}
		for _, k := range keys {
			row := []string{k, tripText(trips[k])}
			ser := doc.Series{Name: k, Stmt: keyValue(k, "stmt"), Conn: keyValue(k, "conn")}
			for _, d := range delays {
				center, text, ok := byMode[mode][d].cell(k, fig)
				row = append(row, text)
				if ok {
					ser.X, ser.Y = append(ser.X, float64(d.Microseconds())/1000), append(ser.Y, center)
				}
			}
			t.Rows = append(t.Rows, row)
			c.Series = append(c.Series, ser)
		}
		return t, c
	}
	if len(byMode[Closed]) > 0 {
		tq, cq := metric(Closed, units.QPS, figQPS)
		tl, cl := metric(Closed, "p50 ms", figP50)
		cq.Title = fmt.Sprintf("Closed loop, %d connections: median QPS against delay", plan.Concurrency)
		cl.Title = fmt.Sprintf("Closed loop, %d connections: median p50 against delay", plan.Concurrency)
		tc, _ := metric(Closed, "µs/op", figGenCPU)
		p.Sections = append(p.Sections,
			doc.Section{Heading: "Closed loop: QPS", Charts: []doc.LineChart{cq}, Tables: []doc.Table{tq}},
			doc.Section{Heading: "Closed loop: p50 ms", Charts: []doc.LineChart{cl}, Tables: []doc.Table{tl}},
			doc.Section{Heading: "Closed loop: CPU of the load generator and the delay proxy, µs per request",
				Paragraphs: []string{say("rtt-proxy-cpu", nil)},
				Tables:     []doc.Table{tc}})
	}
	if len(byMode[Open]) > 0 {
		tl, cl := metric(Open, "p50 ms", figP50)
		t9, c9 := metric(Open, "p99 ms", figP99)
		cl.Title = fmt.Sprintf("Open loop at %g req/s: median p50 against delay", plan.Rate)
		c9.Title = fmt.Sprintf("Open loop at %g req/s: median p99 against delay", plan.Rate)
		p.Sections = append(p.Sections,
			doc.Section{Heading: fmt.Sprintf("Open loop at %g req/s: p50 ms", plan.Rate), Charts: []doc.LineChart{cl}, Tables: []doc.Table{tl}},
			doc.Section{Heading: fmt.Sprintf("Open loop at %g req/s: p99 ms", plan.Rate), Charts: []doc.LineChart{c9}, Tables: []doc.Table{t9}},
			predicted(byMode[Open], delays, keys, trips))
	}
	var invalid []string
	for _, pt := range points {
		for _, v := range pt.Run.Variants {
			if !v.Valid {
				invalid = append(invalid, fmt.Sprintf("%s, %s each way, %s loop: %s", v.Key, units.DelayMillis(pt.Delay), pt.Mode, v.InvalidReason))
			}
		}
		if pt.Run.Status != results.Complete {
			invalid = append(invalid, fmt.Sprintf("the run at %s each way, %s loop, is %s: %s", units.DelayMillis(pt.Delay), pt.Mode, pt.Run.Status, pt.Run.Error))
		}
	}
	if len(invalid) == 0 {
		invalid = []string{"None."}
	}
	p.Sections = append(p.Sections, doc.Section{Heading: "Invalid variants and incomplete runs", Paragraphs: invalid},
		environment(points[0].Run.Environment))
	return p
}

// findings says, per variant with its statement mode set aside, what interpolate
// gains over prepare, and prepared over interpolate, at each delay: the ratio of
// closed-loop QPS and the change of open-loop p50 (medians over repetitions).
func findings(byMode map[string]map[time.Duration]pointFigures, delays []time.Duration, keys []string) (doc.Section, bool) {
	type group struct {
		name  string
		stmts map[string]string // stmt -> variant key
	}
	var groups []*group
	byName := map[string]*group{}
	for _, k := range keys {
		var rest []matrix.Part
		stmt := ""
		for _, p := range matrix.Parts(k) {
			if p.Name == "stmt" {
				stmt = p.Value
				continue
			}
			rest = append(rest, p)
		}
		name := matrix.Spell(rest)
		g := byName[name]
		if g == nil {
			g = &group{name: name, stmts: map[string]string{}}
			byName[name] = g
			groups = append(groups, g)
		}
		g.stmts[stmt] = k
	}
	compare := func(a, b string) string {
		var qps, p50 []string
		for _, d := range delays {
			qa, _, oka := byMode[Closed][d].cell(a, figQPS)
			qb, _, okb := byMode[Closed][d].cell(b, figQPS)
			if oka && okb && qb > 0 {
				qps = append(qps, fmt.Sprintf("×%.2f at %s", qa/qb, units.DelayMillis(d)))
			}
			la, _, oka := byMode[Open][d].cell(a, figP50)
			lb, _, okb := byMode[Open][d].cell(b, figP50)
			va, pastA := byMode[Open][d].past(a)
			vb, pastB := byMode[Open][d].past(b)
			switch {
			case pastA || pastB:
				state := va.State
				if !pastA {
					state = vb.State
				}
				p50 = append(p50, fmt.Sprintf("not compared at %s (%s)", units.DelayMillis(d), unmeasuredWhy(state)))
			case oka && okb:
				p50 = append(p50, fmt.Sprintf("%+.2f ms at %s", la-lb, units.DelayMillis(d)))
			}
		}
		var out []string
		if len(qps) > 0 {
			out = append(out, "closed-loop QPS "+strings.Join(qps, ", "))
		}
		if len(p50) > 0 {
			out = append(out, "open-loop p50 "+strings.Join(p50, ", "))
		}
		return strings.Join(out, "; ")
	}
	var lines []string
	for _, g := range groups {
		for _, pair := range [][2]string{{"interpolate", "prepare"}, {"prepared", "interpolate"}} {
			a, b := g.stmts[pair[0]], g.stmts[pair[1]]
			if a == "" || b == "" {
				continue
			}
			if c := compare(a, b); c != "" {
				lines = append(lines, fmt.Sprintf("%s, %s against %s: %s.", g.name, pair[0], pair[1], c))
			}
		}
	}
	if len(lines) == 0 {
		return doc.Section{}, false
	}
	intro := "Medians over the slices; the delay is added each way. A QPS ratio above 1 and a negative p50 change favour the first mode."
	return doc.Section{Heading: "In words", Paragraphs: append([]string{intro}, lines...)}, true
}

// predicted sets the open-loop p50 increase over delay 0 beside round trips × 2 × delay.
func predicted(runs map[time.Duration]pointFigures, delays []time.Duration, keys []string, trips map[string]float64) doc.Section {
	t := doc.Table{Head: []string{"variant", "round trips/op"}}
	for _, d := range delays[1:] {
		t.Head = append(t.Head, units.DelayMillis(d)+": measured / predicted ms")
	}
	var past []string
	for _, k := range keys {
		row := []string{k, tripText(trips[k])}
		base, _, bok := runs[delays[0]].cell(k, figP50)
		baseVerdict, basePast := runs[delays[0]].past(k)
		baseState := baseVerdict.State
		for _, d := range delays[1:] {
			v, _, ok := runs[d].cell(k, figP50)
			pred := "?"
			if trips[k] >= 0 {
				pred = fmt.Sprintf("%.2f", trips[k]*2*float64(d.Microseconds())/1000)
			}
			verdict, isPast := runs[d].past(k)
			switch {
			case isPast || basePast:
				// Queueing behind an overloaded server is not distance: no measured figure.
				state := verdict.State
				if !isPast {
					state = "its delay-0 point: " + baseState
				}
				row = append(row, fmt.Sprintf("%s / %s", state, pred))
				if isPast {
					past = append(past, fmt.Sprintf("%s at %s: %s", k, units.DelayMillis(d), verdict.Flag()))
				}
			case !bok || !ok:
				row = append(row, "- / "+pred)
			default:
				row = append(row, fmt.Sprintf("%+.2f / %s", v-base, pred))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	sec := doc.Section{Heading: "Open loop: added p50 against the round-trip prediction",
		Paragraphs: []string{say("rtt-added-p50", nil)},
		Tables:     []doc.Table{t}}
	for _, p := range past {
		sec.Paragraphs = append(sec.Paragraphs, p)
	}
	return sec
}

// pointFigures are one point's variants' figures by key (RTTPoint.Figures); nil for
// a point not measured.
type pointFigures map[string]*RTTFigures

// past is package saturation's verdict on variant key at the point, and whether it
// marks the latency as queueing rather than service time.
func (p pointFigures) past(key string) (saturation.Verdict, bool) {
	if f := p[key]; f != nil {
		return f.Verdict, f.Past
	}
	return saturation.Verdict{}, false
}

// variantOrder lists the variant keys in the first run's order, with their round
// trips per request from the first run that counted them (-1 when none did).
func variantOrder(points []RTTPoint) ([]string, map[string]float64) {
	var keys []string
	trips := map[string]float64{}
	for _, pt := range points {
		for _, v := range pt.Run.Variants {
			if _, ok := trips[v.Key]; !ok {
				keys = append(keys, v.Key)
				trips[v.Key] = -1
			}
			if trips[v.Key] < 0 && v.Roundtrips != nil {
				_, trips[v.Key] = v.Roundtrips.Commands()
			}
		}
	}
	return keys, trips
}

func tripText(x float64) string {
	if x < 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", x)
}

// cell is the median over slices of one figure of variant key at the point, and its
// text; ok is false and the text "-" when not measured, "invalid" when the variant was
// invalid.
func (p pointFigures) cell(key, fig string) (center float64, text string, ok bool) {
	f := p[key]
	switch {
	case f == nil:
		return 0, "-", false
	case f.Invalid:
		return 0, "invalid", false
	}
	m, ok := f.Medians[fig]
	if !ok {
		return 0, "-", false
	}
	return m, fmt.Sprintf("%.4g", m), true
}

func durations(ds []time.Duration) string {
	var out []string
	for _, d := range ds {
		out = append(out, units.DelayMillis(d))
	}
	return strings.Join(out, ", ")
}

// unmeasuredWhy says why an open-loop point has no latency figure: a target past its
// capacity queues, which is not distance; a generator behind its schedule measured
// nothing it can vouch for.
func unmeasuredWhy(state string) string {
	if state == saturation.GeneratorBehind {
		return "generator behind: the load generator did not keep its schedule"
	}
	return state + ": queueing, not distance"
}
