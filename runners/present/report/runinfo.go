package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"dbbench/runners/results"
	"dbbench/runners/units"
)

// runLine says in one line what this run was: when, machine, versions, preset, length.
func (d *data) runLine() string {
	r, env := d.run, d.run.Environment
	parts := []string{fmt.Sprintf("Run of %s, %s", r.Started.UTC().Format("2006-01-02"), r.Status)}
	if !r.Finished.IsZero() {
		parts[0] += fmt.Sprintf(" after %s", r.Finished.Sub(r.Started).Round(time.Second))
	}
	parts = append(parts, fmt.Sprintf("preset %s, %d variants", r.Settings.Preset, len(r.Variants)))
	// The system and kernel are in the appendix's environment table.
	machine := strings.TrimSpace(fmt.Sprintf("%s, %s cores", env["cpu"], env["cpu-count"]))
	if env["cpu-count"] == "" {
		machine = env["cpu"]
	}
	parts = append(parts, strings.Trim(machine, ", "))
	var versions []string
	for _, kv := range [][2]string{{"database", ""}, {"database-mysql", ""}, {"database-postgres", ""}, {"dbbench-go", "Go "}, {"gotarget-go", "Go "}, {"php", "PHP "}} {
		if v := env[kv[0]]; v != "" && !slices.Contains(versions, kv[1]+v) {
			versions = append(versions, kv[1]+v)
		}
	}
	if c := env["dbbench-commit"]; len(c) >= 7 {
		versions = append(versions, "dbbench "+c[:7])
	}
	parts = append(parts, strings.Join(versions, ", "), topologyText(r.Topology))
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), " · ") + "."
}

// topologyText says where the roles ran and how far apart they were, when not all on
// one loopback: "netns: load 10.77.5.1, app 10.77.5.3, db 10.77.5.2; round trips load→app
// 15.3 µs, app→db 40.8 µs".
func topologyText(t *results.Topology) string {
	if t == nil || t.Kind == "" || t.Kind == results.Loopback {
		return ""
	}
	var roles, rtts []string
	for _, p := range t.Roles {
		r := p.Role + " " + p.Addr
		if len(p.Environment) > 0 { // on another machine: which, and what it is
			r += fmt.Sprintf(" (%s, %s cores)", p.Host, p.Environment["cpu-count"])
		}
		roles = append(roles, r)
	}
	for _, l := range t.Links {
		if l.Via == "direct" && l.From != results.RoleLoad || l.To == results.RoleApp {
			rtts = append(rtts, fmt.Sprintf("%s→%s %s", l.From, l.To, units.Seconds(l.RTT)))
		}
	}
	s := string(t.Kind) + ": " + strings.Join(roles, ", ")
	if len(rtts) > 0 {
		s += "; round trips " + strings.Join(rtts, ", ")
	}
	return s
}

// alerts say how far the data can be trusted.
func (d *data) alerts(fs []finding) []string {
	var out []string
	r := d.run
	if r.Status != results.Complete {
		msg := fmt.Sprintf("This run is %s: only what it measured is reported.", r.Status)
		if r.Error != "" {
			msg += " Error: " + r.Error
		}
		out = append(out, msg)
	}
	if len(fs) > 0 && !fs[0].Paired {
		out = append(out, say("alert-unpaired", nil))
	}
	out = append(out, d.churns()...)
	if len(d.invalid) > 0 {
		n := len(d.invalid)
		out = append(out, fmt.Sprintf("%d %s invalid and left out of every number: see the appendix.", n, units.Plural(n, "variant was", "variants were")))
	}
	return out
}

// ceiling describes the hello variants: the HTTP stack alone, no database.
func (d *data) ceiling() []string {
	var out []string
	for _, v := range d.valid {
		if v.DB {
			continue
		}
		s, ok := d.summary(v, units.QPS)
		if !ok {
			continue
		}
		out = append(out, fmt.Sprintf("%s under %s answers without the database at %s req/s: no %s variant under %s can exceed this.",
			langName(v.Lang), serverName(v.Server), scaled(s, 1, 0, warnText(s.Warnings)), langName(v.Lang), serverName(v.Server)))
	}
	if len(out) == 0 {
		out = append(out, "No valid hello variant was measured, so the run has no HTTP-only ceiling.")
	}
	return out
}

func warnText(ws []string) string {
	if len(ws) == 0 {
		return ""
	}
	return " [" + strings.Join(ws, "; ") + "]"
}

func (d *data) invalidLines() []string {
	var out []string
	for _, v := range d.invalid {
		out = append(out, label(v)+": "+reason(v))
	}
	return out
}

func reason(v *results.Variant) string {
	if v.InvalidReason != "" {
		return v.InvalidReason
	}
	return "marked invalid without a reason"
}

// flagged lists "variant: flag" for every flag a variant carries (saturated, …).
func (d *data) flagged() []string {
	var out []string
	for _, v := range d.run.Variants {
		for _, f := range v.Flags {
			out = append(out, label(v)+": "+f)
		}
	}
	return out
}

// yardstick says in one line how fast the machine was at each reading, "" without one.
func (d *data) yardstick() string {
	y := d.run.Yardstick
	if y == nil || len(y.Readings) == 0 {
		return ""
	}
	var parts []string
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range d.judged.Yardstick {
		lo, hi = math.Min(lo, r.Median), math.Max(hi, r.Median)
		parts = append(parts, fmt.Sprintf("%s %s", r.Phase, seconds(r.Median)))
	}
	if len(parts) == 0 {
		return ""
	}
	out := fmt.Sprintf("%s (%s), median of the trials at each reading: %s.", term("Yardstick", "yardstick"), y.Work, strings.Join(parts, ", "))
	if lo > 0 {
		out += " " + say("yardstick-drift", map[string]any{"Percent": 100 * (hi/lo - 1)})
	}
	return out
}

// seconds writes a duration in the unit that suits it.
func seconds(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.2f ms", 1e3*s)
	}
	return fmt.Sprintf("%.1f µs", 1e6*s)
}

// churns flags the variants that keep their connections yet dialled under load
// (results.Variant.Churns), in one alert: a run of every layer as shipped has one pool
// that churns per layer.
func (d *data) churns() []string {
	var names []string
	var dials []float64
	for _, v := range d.valid {
		if n, churns, _ := v.Churns(); churns {
			names, dials = append(names, label(v)), append(dials, n)
		}
	}
	switch len(names) {
	case 0:
		return nil
	case 1:
		return []string{fmt.Sprintf("%s keeps its connections, yet the server counted %s new connections per request (median of its slices): a pool that churns, closing idle connections that the next requests dial again.",
			names[0], units.Number(dials[0]))}
	}
	return []string{fmt.Sprintf("%d variants keep their connections, yet the server counted %s new connections per request (medians of their slices): pools that churn, closing idle connections that the next requests dial again: %s.",
		len(names), numberRange(dials), strings.Join(names, ", "))}
}

// numberRange is "0.58 to 0.60", or one number where they are all the same.
func numberRange(xs []float64) string {
	lo, hi := units.Number(slices.Min(xs)), units.Number(slices.Max(xs))
	if lo == hi {
		return lo
	}
	return lo + " to " + hi
}
