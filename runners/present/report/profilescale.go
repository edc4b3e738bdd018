package report

import (
	"cmp"
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"

	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// A profiled slice runs under the profilers and after the measured slices, so its own
// app CPU per request is not the measured one (by how much, the report says:
// profiledAgainstMeasured).
// Its components are used for their shares only: scaled to the measured median, they
// add up to the figures of the tables, and a layer's components add up to its
// measured difference from the raw driver.

// measuredScale is the factor that makes v's components add up to v's median app CPU
// per request over its measured slices; ok is false (and the factor 1) when either is
// missing, or when the profile counts wall time, whose shares are not CPU's.
func (d *data) measuredScale(v *results.Variant) (float64, bool) {
	med, ok := d.median(v, units.AppCPU)
	sum := componentSum(v.Profile)
	if !ok || med <= 0 || sum <= 0 || v.Profile.Clock == "real" {
		return 1, false
	}
	return med / sum, true
}

func componentSum(p *results.Profile) float64 {
	sum := 0.0
	for _, x := range p.Components {
		sum += x
	}
	return sum
}

// profiledAgainstMeasured says, per server, how the profiled slices' own app CPU per
// request compares with the measured slices', and why it may differ.
func (d *data) profiledAgainstMeasured(vs []*results.Variant) []string {
	order, by := servers(vs)
	var ranges, causes []string
	for _, g := range order {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range by[g] {
			if med, ok := d.median(v, units.AppCPU); ok && med > 0 && v.Profile.AppCPU > 0 {
				lo, hi = min(lo, v.Profile.AppCPU/med), max(hi, v.Profile.AppCPU/med)
			}
		}
		if math.IsInf(lo, 1) {
			continue
		}
		ranges = append(ranges, fmt.Sprintf("%s %s", groupTitle(g), ratioRange(lo, hi)))
		if c := say("profile-cause", cmp.Or(by[g][0].Profile.Source, "pprof")); c != "" {
			causes = append(causes, fmt.Sprintf("%s: %s", groupTitle(g), c))
		}
	}
	if len(ranges) == 0 {
		return nil
	}
	return []string{say("profiled-against-measured", map[string]any{"Ranges": ranges, "Causes": causes})}
}

// ratioRange is "1.15–1.58×", or "1.20×" for a range of one.
func ratioRange(lo, hi float64) string {
	if a, b := units.Ratio(lo), units.Ratio(hi); a != b {
		return strings.TrimSuffix(a, "×") + "–" + b
	}
	return units.Ratio(lo)
}

// extraComponents says, for each layer but the baseline, how its measured extra app CPU
// over the baseline's variant of the same setting divides among the components.
func (d *data) extraComponents(vs []*results.Variant, l *results.Lang, fs []finding) []string {
	if l == nil {
		return nil
	}
	var out []string
	for _, v := range vs {
		base := d.run.BaselineOf(v)
		if !v.DB || v.Layer == base {
			continue
		}
		i := slices.IndexFunc(vs, func(b *results.Variant) bool {
			return b.Layer == base && b.Database == v.Database && setting(b) == setting(v)
		})
		if i < 0 {
			continue
		}
		if s := d.componentSentence(v, vs[i], fs); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// componentSentence is one layer's extra app CPU over base, in the table's figure,
// split by the scaled profiles into its two largest components and the rest, rounded
// so that the parts add up to the total as printed.
func (d *data) componentSentence(v, base *results.Variant, fs []finding) string {
	xs, total, ok := d.scaledExtras(v, base)
	if !ok {
		return ""
	}
	if i := slices.IndexFunc(fs, func(f finding) bool {
		return f.Question == questions.Layer && f.Other == v && f.Base == base && !math.IsNaN(f.ExtraCPU)
	}); i >= 0 {
		total = fs[i].ExtraCPU // the same figure as the table's cell
	}
	decimals := 0
	if math.Abs(total) < 10e-6 {
		decimals = 1 // as MicrosDelta prints the table's figure
	}
	round := func(x float64) float64 { return math.Round(x*1e6*math.Pow10(decimals)) / 1e6 / math.Pow10(decimals) }
	us := func(x float64) string { return units.MicrosDeltaIn(x, decimals) }
	rest := round(total)
	var parts []string
	for _, x := range xs[:min(2, len(xs))] {
		if round(x.x) > 0 {
			parts = append(parts, fmt.Sprintf("%s in %s", us(round(x.x)), x.name))
			rest -= round(x.x)
		}
	}
	head := fmt.Sprintf("%s (%s, %s, %s) costs %s app CPU per request over %s (medians of the measured slices)",
		library(v), serverName(v.Server), v.Stmt, v.Conn, us(round(total)), shortLibrary(base))
	switch {
	case len(parts) == 0:
		return head + "; its profile shows no component that grows."
	case round(rest) == 0:
		return fmt.Sprintf("%s; by its scaled profile, %s.", head, strings.Join(parts, " and "))
	}
	return fmt.Sprintf("%s; by its scaled profile, %s and %s in the other components together.",
		head, strings.Join(parts, ", "), us(rest))
}

// extra is what a layer spends more than its baseline in one component.
type extra struct {
	name string
	x    float64 // seconds per request
}

// scaledExtras are v's components minus base's, each profile scaled to its measured
// median, the largest first, and their sum; ok is false when either cannot be scaled.
func (d *data) scaledExtras(v, base *results.Variant) ([]extra, float64, bool) {
	kv, okV := d.measuredScale(v)
	kb, okB := d.measuredScale(base)
	if !okV || !okB {
		return nil, 0, false
	}
	var xs []extra
	total := 0.0
	for _, c := range slices.Sorted(mapsKeys(v.Profile.Components, base.Profile.Components)) {
		x := kv*v.Profile.Components[c] - kb*base.Profile.Components[c]
		xs = append(xs, extra{c, x})
		total += x
	}
	slices.SortStableFunc(xs, func(a, b extra) int { return cmp.Compare(b.x, a.x) })
	return xs, total, true
}

// mapsKeys are the keys of a and b, each once.
func mapsKeys(a, b map[string]float64) iter.Seq[string] {
	return func(yield func(string) bool) {
		for k := range a {
			if !yield(k) {
				return
			}
		}
		for k := range b {
			if _, dup := a[k]; dup {
				continue
			}
			if !yield(k) {
				return
			}
		}
	}
}
