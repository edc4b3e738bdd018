package soak

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"dbbench/runners/present/doc"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// WriteReport judges the soak in dir and writes its report.md and report.html.
func WriteReport(dir string) (*File, error) {
	f, err := Read(dir)
	if err != nil {
		return nil, err
	}
	f.Judge()
	return f, doc.Write(dir, Page(f))
}

// Page is the soak's report: the verdicts first, then the capacities and the load, then
// one small chart per series and role with its trend line, then the environment. It
// formats what Judge set (verdicts, each variant's load): judge f first.
func Page(f *File) *doc.Page {
	p := &doc.Page{
		Title: fmt.Sprintf("dbbench soak: %s at %.0f%% of capacity for %s", units.Count(len(f.Variants), "variant"), 100*f.Settings.RateFraction, f.Settings.Duration),
		Intro: intro(f),
	}
	p.Sections = append(p.Sections, verdictSection(f), loadSection(f))
	names, roles := f.Roles()
	for i, r := range roles {
		p.Sections = append(p.Sections, roleSection(f, names[i], r))
	}
	p.Sections = append(p.Sections, environmentSection(f))
	return p
}

func intro(f *File) []string {
	st := f.Settings
	var out []string
	switch f.Status {
	case results.Complete:
		out = append(out, fmt.Sprintf("Complete: %d samples, one every %s over %s.", f.Samples, st.Interval, st.Duration))
	case results.Running:
		out = append(out, fmt.Sprintf("Still running, or stopped without a word (killed): %d samples so far, one every %s.", f.Samples, st.Interval))
	default:
		out = append(out, fmt.Sprintf("%s: %s. The %d samples measured until then are kept and judged below.", strings.ToUpper(string(f.Status[:1]))+string(f.Status[1:]), f.Error, f.Samples))
	}
	flagged, total := 0, 0
	_, roles := f.Roles()
	for _, r := range roles {
		for _, s := range r.Series {
			total++
			if s.Verdict != nil && s.Verdict.Flagged() {
				flagged++
			}
		}
	}
	together := f.withOthers()
	if rising := f.Rising(); len(rising) > 0 {
		out = append(out, say("intro-rising", map[string]any{"Rising": rising}))
	}
	switch {
	case flagged == 0 && len(f.Rising()) > 0:
		out = append(out, say("intro-none-flagged-rising", map[string]any{"Total": total}))
		if together != "" {
			out = append(out, together)
		}
	case flagged == 0 && together != "":
		out = append(out, say("intro-nothing-grows", map[string]any{"Total": total}), together)
	case flagged == 0:
		out = append(out, say("intro-nothing-grows", map[string]any{"Total": total, "LoadsOK": true}))
	default:
		out = append(out, say("intro-flagged", map[string]any{"Flagged": flagged, "Total": total}))
		if together != "" {
			out = append(out, together)
		}
	}
	out = append(out,
		say("intro-how", map[string]any{"Duration": st.Duration, "CapacityTime": st.CapacityTime,
			"CapacityWarmup": st.CapacityWarmup, "RatePct": 100 * st.RateFraction}),
		say("intro-verdicts", map[string]any{
			"Warmup": st.Warmup, "Trend": TrendConfidence, "Late": LateConfidence, "Rest": RestDelay,
			"MemoryResolutionPct": 100 * MemoryResolution, "CountResolution": CountResolution,
			"LevelResolutionPct": 100 * LevelResolution, "MemoryGrowthPct": 100 * MemoryGrowthPerDay,
			"CountGrowth": CountGrowthPerHour, "LevelGrowthPct": 100 * LevelGrowthPerDay, "NoisySpan": MinNoisySpan, "CountedSpan": MinCountedSpan,
			// an hour's soak judges 0.9 of it, after the warm-up of a tenth
			"HourResolvesPct": 100 * MemoryResolution * 24 / 0.9, "MemoryGrowthHours": 24 * MemoryResolution / MemoryGrowthPerDay,
			"MinAchievedPct": 100 * MinAchieved, "MinLoadsCompared": MinLoadsCompared, "MinOfOthersPct": 100 * MinOfOthers,
			"MaxErrorPct": 100 * MaxErrorRate, "MaxPreparedStmtCount": st.MaxPreparedStmtCount, "MaxConnections": st.MaxConnections,
		}),
		say("intro-database", map[string]any{"Statements": st.OutsideStatements, "Memory": st.OutsideMemory}))
	return out
}

// verdictSection is the table of every series' verdict, the flagged ones first.
func verdictSection(f *File) doc.Section {
	type row struct {
		flagged bool
		cells   []string
	}
	var rows []row
	names, roles := f.Roles()
	for i, r := range roles {
		for _, s := range r.Series {
			v := s.Verdict
			if v == nil {
				continue
			}
			rows = append(rows, row{v.Flagged(), verdictRow(names[i], s, v)})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].flagged && !rows[j].flagged })
	t := doc.Table{Head: []string{"role", "series", "verdict", "median", fmt.Sprintf("slope per hour [%g%% interval]", 100*TrendConfidence), "over 24 h", "threshold (24 h)", "limit", "time to limit"}}
	for _, r := range rows {
		t.Rows = append(t.Rows, r.cells)
	}
	return doc.Section{Heading: "Verdicts", Tables: []doc.Table{t},
		Paragraphs: []string{say("verdicts-note", nil)}}
}

func verdictRow(role string, s *Series, v *Verdict) []string {
	u := s.Unit
	verdict := v.Verdict
	slope, day, thr := "–", "–", "–"
	switch s.Kind {
	case Achieved:
		slope = fmt.Sprintf("achieved %.1f%% of offered", 100*v.Ratio)
	case Errors:
		slope = fmt.Sprintf("%.3f%% of requests failed", 100*v.Ratio)
	default:
		if v.Verdict != NotEnough && v.N > 0 {
			slope = units.Estimate(signedValue(v.Slope*3600, u), signedValue(v.Lo*3600, u), signedValue(v.Hi*3600, u))
			thr = FormatValue(v.Threshold, u)
			if v.Verdict == Grows || v.Verdict == Slow {
				day = signedValue(v.PerDay, u) // only a rising series is projected
			}
		}
	}
	limit, toLimit := "–", "–"
	if s.Limit != nil && s.Limit.Value > 0 {
		limit = fmt.Sprintf("%s %s (%s used)", s.Limit.Name, fmtNum(s.Limit.Value), fmtNum(s.Limit.Used))
	}
	if v.ToLimit != nil {
		toLimit = "reached"
		if *v.ToLimit > 0 {
			toLimit = fmtDuration(*v.ToLimit)
		}
	}
	med := "–"
	if v.N > 0 {
		med = FormatValue(v.Median, u)
	}
	return []string{role, s.Label, verdict, med, slope, day, thr, limit, toLimit}
}

// loadSection gives each variant's capacity and how its load went after the warm-up.
func loadSection(f *File) doc.Section {
	t := doc.Table{Head: []string{"variant", "connections", "capacity req/s (closed loop, all at once)", "capacity p99", "served at req/s", "achieved", "failed", "p99 median", "note"}}
	for _, v := range f.Variants {
		capQPS, capP99 := "–", "–"
		if v.Capacity != nil {
			capQPS, capP99 = fmt.Sprintf("%.0f", v.Capacity.QPS), FormatValue(v.Capacity.P99, "s")
		}
		achieved, failed, p99 := "–", "–", "–"
		if l := v.Load; l != nil && l.Offered > 0 {
			achieved = fmt.Sprintf("%.1f%%", 100*l.OK/l.Offered)
		}
		if l := v.Load; l != nil && l.Requests > 0 {
			failed = fmt.Sprintf("%.0f of %.0f", l.Errors, l.Requests)
			p99 = FormatValue(l.P99, "s")
		}
		t.Rows = append(t.Rows, []string{v.Key, fmt.Sprint(v.Connections), capQPS, capP99, fmt.Sprintf("%.0f", v.Rate), achieved, failed, p99, v.Died})
	}
	return doc.Section{Heading: "Capacity and load", Tables: []doc.Table{t}, Paragraphs: []string{
		say("load-note", map[string]any{"RatePct": 100 * f.Settings.RateFraction, "Interval": f.Settings.Interval})}}
}

// roleSection draws one small chart per series of a role: the samples, and the
// Theil–Sen line over the points after the warm-up.
func roleSection(f *File, name string, r *Role) doc.Section {
	sec := doc.Section{Heading: name}
	var parts []string
	for _, s := range r.Series {
		if s.Verdict != nil {
			parts = append(parts, s.Name+" "+s.Verdict.Verdict)
		}
		sec.Charts = append(sec.Charts, chart(f, s))
	}
	sec.Paragraphs = append(sec.Paragraphs, strings.Join(parts, " · ")+".", say("chart-legend", nil))
	return sec
}

func chart(f *File, s *Series) doc.LineChart {
	scale, unit := 1.0, s.Unit
	switch s.Unit {
	case "bytes":
		scale, unit = 1.0/(1<<20), "MiB"
	case "s":
		scale, unit = 1e3, "ms"
	}
	title := s.Label
	if s.Verdict != nil {
		title += ": " + s.Verdict.Verdict
	}
	c := doc.LineChart{Title: title, XLabel: "minutes", YLabel: unit}
	samples := doc.Series{Name: "sampled", LineOnly: true}
	for _, p := range s.Points {
		samples.X, samples.Y = append(samples.X, p.T/60), append(samples.Y, p.Value*scale)
	}
	// The colours follow the order: samples, trend, offered (the page says so).
	line := doc.Series{Name: fmt.Sprintf("Theil–Sen trend after the %s warm-up", f.Settings.Warmup), LineOnly: true}
	if v := s.Verdict; v != nil && v.N > 0 && s.Kind != Achieved && s.Kind != Errors && v.Verdict != NotEnough && len(s.Points) > 0 {
		t0 := math.Max(f.Settings.WarmupSeconds, s.Points[0].T)
		t1 := s.Points[len(s.Points)-1].T
		for _, t := range []float64{t0, t1} {
			line.X, line.Y = append(line.X, t/60), append(line.Y, (v.Intercept+v.Slope*t)*scale)
		}
	}
	offered := doc.Series{Name: "offered", LineOnly: true}
	for _, p := range s.Offered {
		offered.X, offered.Y = append(offered.X, p.T/60), append(offered.Y, p.Value*scale)
	}
	c.Series = append(c.Series, samples, line, offered)
	return c
}

func environmentSection(f *File) doc.Section {
	t := doc.Table{Head: []string{"key", "value"}}
	for _, k := range slices.Sorted(maps.Keys(f.Environment)) {
		t.Rows = append(t.Rows, []string{k, f.Environment[k]})
	}
	return doc.Section{Heading: "Environment", Tables: []doc.Table{t}}
}

// fmtDuration prints seconds as days or hours, as far ahead as a limit can be.
func fmtDuration(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case s > 2*86400:
		return fmt.Sprintf("%.1f days", s/86400)
	case s > 2*3600:
		return fmt.Sprintf("%.1f h", s/3600)
	default:
		return d.Round(time.Second).String()
	}
}
