package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"dbbench/runners/results"
	"dbbench/runners/units"
)

// Resident PHP workers can answer hello faster than Go's net/http (reports/sample/quick),
// which surprises. serverContrast puts the two hello variants side by side with the
// run's own figures and says what each HTTP server does per request (from the code), so
// that the report explains its result or says what it cannot.

// contrast is the two hello variants, the faster first.
type contrast struct{ fast, slow *results.Variant }

// helloContrast finds Go's net/http hello and the resident workers' hello.
func (d *data) helloContrast() (contrast, bool) {
	find := func(lang, server string) *results.Variant {
		i := slices.IndexFunc(d.valid, func(v *results.Variant) bool { return !v.DB && v.Lang == lang && v.Server == server })
		if i < 0 {
			return nil
		}
		return d.valid[i]
	}
	a, b := find("go", "nethttp"), find("php", "worker")
	if a == nil || b == nil {
		return contrast{}, false
	}
	qa, okA := d.median(a, units.QPS)
	qb, okB := d.median(b, units.QPS)
	if !okA || !okB {
		return contrast{}, false
	}
	if qa > qb {
		return contrast{a, b}, true
	}
	return contrast{b, a}, true
}

// serverRow is one figure of the contrast's table: its name and its text per side.
type serverRow struct {
	name string
	cell func(v *results.Variant) string
}

// serverContrast is the table and the paragraphs; ok is false without both variants.
func (d *data) serverContrast() (grid, []string, bool) {
	c, ok := d.helloContrast()
	if !ok {
		return grid{}, nil, false
	}
	vs := []*results.Variant{c.fast, c.slow}
	g := grid{ID: "t-hello-servers", Caption: "Hello (no database) per request, by server: medians of the slices, as in “Every variant”",
		Head: []string{"per request", label(vs[0]), label(vs[1])}}
	for _, r := range d.serverRows() {
		g.Rows = append(g.Rows, []cell{textCell(r.name), textCell(r.cell(vs[0])), textCell(r.cell(vs[1]))})
	}
	return g, append([]string{d.whyFaster(c)}, serverWork()...), true
}

func (d *data) serverRows() []serverRow {
	fig := func(unit string) func(*results.Variant) string {
		return func(v *results.Variant) string { return d.shownText(v, unit) }
	}
	return []serverRow{
		{"req/s", fig(units.QPS)}, {"p50 ms", fig(units.P50)},
		{"app CPU µs", fig(units.AppCPU)}, {"load generator CPU µs", fig(units.GenCPU)}, {"database CPU µs", fig(units.DBCPU)},
		{"CPU of all three roles µs", func(v *results.Variant) string { return asColumn(units.AppCPU, d.roleCPU(v)) }},
		{"app voluntary context switches", fig(units.Switches("app"))},
		{"load generator voluntary context switches", fig(units.Switches("gen"))},
		{"app read+write calls", func(v *results.Variant) string {
			if !v.Counted(units.Syscalls("app")) {
				return "– (recv/send: not counted)"
			}
			return d.shownText(v, units.Syscalls("app"))
		}},
		{"load generator read+write calls", fig(units.Syscalls("gen"))},
		{"allocations, bytes (Go)", func(v *results.Variant) string {
			if _, ok := d.shown(v, units.Allocs); !ok {
				return "– (no Go runtime)"
			}
			return d.shownText(v, units.Allocs) + ", " + d.shownText(v, units.AllocBytes) + " B"
		}},
		{"peak allocated kB (PHP worker)", func(v *results.Variant) string {
			if _, ok := d.shown(v, units.ReqPeakAlloc); !ok {
				return "– (PHP workers only)"
			}
			return d.shownText(v, units.ReqPeakAlloc)
		}},
		{"app CPU by component (profile)", profileShares},
	}
}

// shownText is v's median in unit as the variant tables print it; "–" (not counted)
// without one.
func (d *data) shownText(v *results.Variant, unit string) string {
	x, ok := d.shown(v, unit)
	if !ok {
		return "– (not counted)"
	}
	return asColumn(unit, x)
}

// asColumn prints x as the variant tables print unit.
func asColumn(unit string, x float64) string {
	for _, c := range slices.Concat(timeColumns, countColumns) {
		if c.unit == unit {
			return fmt.Sprintf("%.*f", c.digits, x*c.factor)
		}
	}
	return units.Number(x)
}

// roleCPU is the CPU per request of target, load generator and database together.
func (d *data) roleCPU(v *results.Variant) float64 {
	sum := 0.0
	for _, u := range []string{units.AppCPU, units.GenCPU, units.DBCPU} {
		if x, ok := d.shown(v, u); ok {
			sum += x
		}
	}
	return sum
}

// profileShares is "syscalls & network 46%, runtime, GC & profiler 29%, …": the
// shares of the profile's three largest components.
func profileShares(v *results.Variant) string {
	if v.Profile == nil || componentSum(v.Profile) <= 0 {
		return "– (not profiled)"
	}
	names := slices.Collect(maps.Keys(v.Profile.Components))
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(v.Profile.Components[b], v.Profile.Components[a]) })
	var parts []string
	for _, n := range names[:min(3, len(names))] {
		parts = append(parts, n+" "+units.Share(v.Profile.Components[n]/componentSum(v.Profile)))
	}
	return strings.Join(parts, "; ")
}

// whyFaster says, from the run's figures, how far CPU per request explains the two
// throughputs on this machine's cores.
func (d *data) whyFaster(c contrast) string {
	f, s := c.fast, c.slow
	head := fmt.Sprintf("Why %s answers hello faster than %s here: %s against %s req/s.",
		groupTitle(groupOf(f)), groupTitle(groupOf(s)), d.shownText(f, units.QPS), d.shownText(s, units.QPS))
	cores, err := strconv.Atoi(d.run.Environment["cpu-count"])
	if err != nil || cores <= 0 || d.roleCPU(f) <= 0 || d.roleCPU(s) <= 0 {
		return head
	}
	ceil := func(v *results.Variant) float64 { return float64(cores) / d.roleCPU(v) }
	served := func(v *results.Variant) float64 { q, _ := d.median(v, units.QPS); return q / ceil(v) }
	sleeps := d.lessOrMore(f, s, units.Switches("gen"))
	bunches := "" // fewer wake-ups of the generator per request: answers arriving together
	if sleeps == "less" {
		bunches = ": that suggests the answers reach it in bunches rather than one at a time"
	}
	return head + fmt.Sprintf(" The target, the load generator and the database share this machine's %d cores, and all three are counted: "+
		"per request they spend %s µs on %s and %s µs on %s, which caps the cores at %s and %s req/s; "+
		"the runs reached %s and %s of those caps, so throughput here follows CPU per request. "+
		"%s spends %s in the app (%s against %s µs); the load generator (dbbench's, in Go, the same for both) spends %s against it "+
		"(%s against %s µs) and sleeps %s per request (%s against %s voluntary context switches)%s. What each server does per request:",
		cores, asColumn(units.AppCPU, d.roleCPU(f)), label(f), asColumn(units.AppCPU, d.roleCPU(s)), label(s), units.Number(math.Round(ceil(f))), units.Number(math.Round(ceil(s))),
		units.Share(served(f)), units.Share(served(s)), groupTitle(groupOf(f)),
		d.lessOrMore(f, s, units.AppCPU), d.shownText(f, units.AppCPU), d.shownText(s, units.AppCPU),
		d.lessOrMore(f, s, units.GenCPU), d.shownText(f, units.GenCPU), d.shownText(s, units.GenCPU),
		sleeps, d.shownText(f, units.Switches("gen")), d.shownText(s, units.Switches("gen")), bunches)
}

// lessOrMore compares f's median of unit with s's, as the sentence's verb says it.
func (d *data) lessOrMore(f, s *results.Variant, unit string) string {
	a, okA := d.median(f, unit)
	b, okB := d.median(s, unit)
	switch {
	case !okA || !okB || a == b:
		return "as much"
	case a < b:
		return "less"
	}
	return "more"
}

// serverWork says what each HTTP server does per request, from its code, and what the
// run does not show.
func serverWork() []string {
	return []string{say("server-work-go", nil), say("server-work-php", nil), say("server-work-unseen", nil)}
}
