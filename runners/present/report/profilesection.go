package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"dbbench/runners/present/chart"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// maxComponents is how many components get a colour of their own; the rest are
// drawn together as "other".
const maxComponents = 9

// profileSection shows where each layer's app CPU goes, from the profiled slice of
// each variant: per language and server one stacked bar per layer, a sentence per
// layer naming what costs it most over the raw driver, and the flame graphs. The bars
// and sentences are scaled to the measured slices (measuredScale), so that they agree
// with the tables.
func (d *data) profileSection(fs []finding) *section {
	var profiled []*results.Variant
	for _, v := range d.valid {
		if v.Profile != nil && len(v.Profile.Components) > 0 {
			profiled = append(profiled, v)
		}
	}
	if len(profiled) == 0 {
		return nil
	}
	comps := componentOrder(profiled)
	s := &section{ID: "profile", Title: "Where the app CPU goes", Intro: []string{say("profile-method", nil)}}
	s.Intro = append(s.Intro, d.profiledAgainstMeasured(profiled)...)
	if line := profileCoverage(profiled); line != "" {
		s.Intro = append(s.Intro, line)
	}
	if slices.ContainsFunc(profiled, func(v *results.Variant) bool { return v.Profile.Clock == "real" }) {
		s.Intro = append(s.Intro, say("profile-wall-clock", nil))
	}
	f := figure{ID: "fig-profile", Title: "App CPU per request by component (µs)"}
	for i, c := range comps {
		f.Legend = append(f.Legend, chart.LegendItem{Name: c, Color: chart.Colors[min(i, len(chart.Colors)-1)]})
	}
	order, by := servers(profiled)
	for _, g := range order {
		shown, at := onePerLayer(by[g])
		f.Panels = append(f.Panels, d.componentPanel(g, shown, at, comps))
		s.Paragraphs = append(s.Paragraphs, d.extraComponents(shown, d.run.Langs[g.lang], fs)...)
	}
	s.Figures = []figure{f}
	s.Grids = []grid{d.flameGrid(profiled)}
	return s
}

// componentPanel is one group's bars: a layer each, at the group's common setting.
func (d *data) componentPanel(g group, shown []*results.Variant, at string, comps []string) chart.Bars {
	var rows []chart.BarRow
	for _, v := range shown {
		k, _ := d.measuredScale(v)
		r := componentRow(v, comps, k)
		r.Label = layerName(v)
		if setting(v) != at {
			r.Label += fmt.Sprintf(" (%s, %s)", v.Stmt, v.Conn)
		}
		rows = append(rows, r)
	}
	title := groupTitle(g)
	if parts := strings.Split(at, "/"); len(parts) == 3 {
		title += fmt.Sprintf(", %s · %s · pool %s", parts[0], parts[1], parts[2])
	}
	xlabel := "app CPU µs per request (measured; shares from the profile)"
	if len(shown) > 0 && shown[0].Profile.Clock == "real" {
		// php-fpm: Excimer samples wall time, waits for MariaDB and for a core included.
		xlabel = "wall µs per request (waits included)"
	}
	return chart.Bars{Title: title, XLabel: xlabel, Width: halfPage, Rows: rows}
}

// componentOrder lists components by their total CPU over all profiles, the largest
// first, the tail folded into "other".
func componentOrder(vs []*results.Variant) []string {
	total := map[string]float64{}
	for _, v := range vs {
		for c, x := range v.Profile.Components {
			total[c] += x
		}
	}
	names := slices.Collect(maps.Keys(total))
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(total[b], total[a]), cmp.Compare(a, b)) })
	if len(names) > maxComponents {
		names = append(names[:maxComponents], "other")
	}
	return names
}

// component is c's CPU per request in p; when comps folds the tail into "other", that
// entry gathers every component not named before it.
func component(p *results.Profile, comps []string, c string) float64 {
	folded := len(comps) > maxComponents
	if c != "other" || !folded {
		return p.Components[c]
	}
	sum := 0.0
	for k, x := range p.Components {
		if !slices.Contains(comps[:maxComponents], k) {
			sum += x
		}
	}
	return sum
}

// componentRow is v's components, each multiplied by k (measuredScale).
func componentRow(v *results.Variant, comps []string, k float64) chart.BarRow {
	var r chart.BarRow
	total := 0.0
	for i, c := range comps {
		x := component(v.Profile, comps, c)
		if x <= 0 {
			continue
		}
		r.Segs = append(r.Segs, chart.BarSeg{Value: 1e6 * k * x, Color: chart.Colors[min(i, len(chart.Colors)-1)],
			Tip: fmt.Sprintf("%s: %s %s per request (%s in the profiled slice)", label(v), c, units.Seconds(k*x), units.Seconds(x))})
		total += x
	}
	r.Value = asColumn(units.AppCPU, k*total) + " µs" // as the variant tables print it
	r.Tip = fmt.Sprintf("%s: %s app CPU per request measured; the profiled slice's components add up to %s, its app CPU was %s",
		label(v), units.Seconds(k*total), units.Seconds(total), units.Seconds(v.Profile.AppCPU))
	return r
}

// onePerLayer keeps, per layer, the variant at the group's most common setting (or the
// layer's first), so each layer has one bar; at is that setting.
func onePerLayer(vs []*results.Variant) (out []*results.Variant, at string) {
	count := map[string]int{}
	for _, v := range vs {
		count[setting(v)]++
	}
	best := ""
	for _, v := range vs {
		if v.DB && (best == "" || count[setting(v)] > count[best]) {
			best = setting(v)
		}
	}
	for _, v := range vs {
		i := slices.IndexFunc(out, func(w *results.Variant) bool { return w.Layer == v.Layer })
		switch {
		case i < 0:
			out = append(out, v)
		case setting(v) == best && setting(out[i]) != best:
			out[i] = v
		}
	}
	return out, best
}

// flameGrid links each profiled variant to its flame graph and raw profiles, beside
// the app CPU its profiled slice measured against its measured slices'.
func (d *data) flameGrid(vs []*results.Variant) grid {
	g := grid{ID: "t-profiles", Caption: "Profiles of each variant (relative to the run directory)",
		Head: []string{"variant", "flame graph", "profiled slice's app CPU per request", "other files"}}
	for _, v := range vs {
		flame := textCell("–")
		if p := v.Profile.Files["flame"]; p != "" {
			flame = cell{Lines: []string{"flame graph"}, Link: p}
		}
		var other []string
		for _, k := range slices.Sorted(maps.Keys(v.Profile.Files)) {
			if k != "flame" {
				other = append(other, k+": "+v.Profile.Files[k])
			}
		}
		g.Rows = append(g.Rows, []cell{textCell(label(v)), flame, textCell(d.profiledCPU(v)), textCell(strings.Join(other, ", "))})
	}
	return g
}

// profiledCPU is "108 µs, 1.45× the measured 74.8 µs".
func (d *data) profiledCPU(v *results.Variant) string {
	out := units.Seconds(v.Profile.AppCPU)
	if med, ok := d.median(v, units.AppCPU); ok && med > 0 {
		out += fmt.Sprintf(", %s the measured %s", units.Ratio(v.Profile.AppCPU/med), units.Seconds(med))
	}
	return out
}

// profileCoverage says which profilers the CPU profiles come from and how their
// components add up against the app CPU measured over the same seconds: the check that
// a profile saw the whole CPU. Wall-clock profiles are left out (they count waits).
func profileCoverage(vs []*results.Variant) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	sources := map[string]bool{}
	for _, v := range vs {
		p := v.Profile
		if p.Clock == "real" || p.AppCPU <= 0 {
			continue
		}
		var sum float64
		for _, x := range p.Components {
			sum += x
		}
		lo, hi = min(lo, sum/p.AppCPU), max(hi, sum/p.AppCPU)
		sources[cmp.Or(p.Source, "pprof")] = true
	}
	if math.IsInf(lo, 1) {
		return ""
	}
	var from []string
	for _, src := range []string{"perf", "pprof", "perf+excimer", "excimer"} {
		if sources[src] {
			from = append(from, say("profiler", src))
		}
	}
	return say("profile-coverage", map[string]any{"From": from, "Lo": lo, "Hi": hi})
}
