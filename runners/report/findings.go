package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// question is one of the three questions the report answers first, in sentences.
type question struct {
	Title     string
	Answers   []string
	NoAnswers string // said instead when the run has no pair to compare
}

func (d *data) questions() []question {
	return []question{
		{
			Title:     "1. ORM overhead: each layer against the raw driver at the same stmt and conn",
			Answers:   d.overheads(),
			NoAnswers: "No layer was measured next to a valid raw-driver variant with the same stmt, conn and pool.",
		},
		{
			Title:     "2. Interpolation: interpolate and prepared against prepare",
			Answers:   d.contrast("stmt", "prepare", []string{"interpolate", "prepared"}, d.change),
			NoAnswers: "No interpolate or prepared variant was measured next to a valid prepare variant.",
		},
		{
			Title:     "3. Connections: per-request against persistent",
			Answers:   d.contrast("conn", "persistent", []string{"per-request"}, d.change),
			NoAnswers: "No per-request variant was measured next to a valid persistent variant.",
		},
	}
}

// overheads answers question 1: every database layer against its language's baseline
// (the raw driver, named in results.json) at the same server, stmt, conn and pool,
// grouped by kind: raw wrappers, then builders, then ORMs.
func (d *data) overheads() []string {
	var out []string
	for _, kind := range []string{"raw", "builder", "orm"} {
		for _, v := range d.valid {
			base := d.baseline(v)
			if v.Kind != kind || base == "" || v.Layer == base {
				continue
			}
			if b := d.find(v, "layer", base); b != nil {
				out = append(out, d.overhead("layer", b, v))
			}
		}
	}
	return out
}

// baseline is the layer v's language compares the others with; "" if none is known or
// v uses no database.
func (d *data) baseline(v *results.Variant) string {
	if l := d.run.Langs[v.Lang]; l != nil && v.DB {
		return l.Baseline
	}
	return ""
}

// contrast pairs every valid variant whose field is base with each sibling that differs
// only in field, and describes each pair.
func (d *data) contrast(field, base string, others []string, describe func(field string, b, v *results.Variant) string) []string {
	var out []string
	for _, b := range d.valid {
		if fieldOf(b, field) != base {
			continue
		}
		for _, o := range others {
			if v := d.find(b, field, o); v != nil {
				out = append(out, describe(field, b, v))
			}
		}
	}
	return out
}

func fieldOf(v *results.Variant, field string) string {
	switch field {
	case "layer":
		return v.Layer
	case "stmt":
		return v.Stmt
	case "conn":
		return v.Conn
	}
	return ""
}

// sharedBy names what two variants share, e.g. "go/nethttp/raw, conn=persistent, pool=8".
func sharedBy(field string, v *results.Variant) string {
	parts := []string{v.Lang + "/" + v.Server}
	if field != "layer" {
		parts[0] += "/" + v.Layer
	}
	if field != "stmt" {
		parts = append(parts, "stmt="+v.Stmt)
	}
	if field != "conn" {
		parts = append(parts, "conn="+v.Conn)
	}
	return strings.Join(append(parts, fmt.Sprintf("pool=%d", v.Pool)), ", ")
}

// overhead answers question 1 for one layer against the baseline.
func (d *data) overhead(_ string, raw, v *results.Variant) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s (%s, %s) against %s/%s (%s): ", v.Lang, v.Layer, v.Library, v.Kind, v.Lang, raw.Layer,
		strings.TrimPrefix(sharedBy("layer", v), v.Lang+"/"))
	if c, err := stats.ChangeOf(d.sample(raw, units.QPS), d.sample(v, units.QPS), units.QPS, stats.DefaultNoise); err == nil {
		fmt.Fprintf(&b, "QPS ratio to raw %s", ratioText(c))
	} else {
		fmt.Fprintf(&b, "QPS not comparable (%v)", err)
	}
	b.WriteString("; " + d.extraCPU(raw, v))
	b.WriteString("; " + extraTrips(raw, v) + ".")
	return b.String()
}

// ratioText is a change as a ratio, "0.78× [0.70× 0.85×] (p = 0.002, n = 10, significant)".
func ratioText(c stats.Change) string {
	x := func(f float64) string {
		if math.IsInf(f, 0) {
			return pct(f)
		}
		return fmt.Sprintf("%.2f×", 1+f)
	}
	return fmt.Sprintf("%s [%s %s] (%s, %s)", x(c.Mid), x(c.Lo), x(c.Hi), pn(c.Comparison), deltaWord(c.Comparison)) + warn(c.Warnings)
}

func pct(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+∞"
	case math.IsInf(f, -1):
		return "-∞"
	}
	return fmt.Sprintf("%+.1f%%", 100*f)
}

// pn is "p = 0.008, n = 5+5" (n once when equal).
func pn(c stats.Comparison) string {
	n := fmt.Sprintf("n = %d", c.Old.N)
	if c.Old.N != c.New.N {
		n = fmt.Sprintf("n = %d+%d", c.Old.N, c.New.N)
	}
	return fmt.Sprintf("p = %.3f, %s", c.P, n)
}

// warn puts warnings in brackets beside the number they qualify.
func warn(ws []string) string {
	if len(ws) == 0 {
		return ""
	}
	// "old: X" and "new: X" say the same of both sides: say it once.
	var out []string
	for _, w := range ws {
		if rest, ok := strings.CutPrefix(w, "new: "); ok && slices.Contains(ws, "old: "+rest) {
			continue
		}
		if rest, ok := strings.CutPrefix(w, "old: "); ok && slices.Contains(ws, "new: "+rest) {
			w = "both: " + rest
		}
		out = append(out, w)
	}
	return " [" + strings.Join(out, "; ") + "]"
}

// extraCPU is the layer's application CPU per request beyond raw's.
func (d *data) extraCPU(raw, v *results.Variant) string {
	old, new := d.sample(raw, units.AppCPU), d.sample(v, units.AppCPU)
	if len(old) == 0 || len(new) == 0 {
		return "app CPU not measured (the target is not on this host)"
	}
	c, err := stats.Compare(old, new, units.AppCPU)
	if err != nil {
		return fmt.Sprintf("app CPU not comparable (%v)", err)
	}
	return fmt.Sprintf("app CPU %+.1f µs per request (%.1f against %.1f µs; %s, %s)%s",
		1e6*(c.New.Center-c.Old.Center), 1e6*c.New.Center, 1e6*c.Old.Center, pn(c), deltaWord(c), warn(c.Warnings))
}

func deltaWord(c stats.Comparison) string {
	if c.Significant {
		return "significant"
	}
	return "~ not significant"
}

func extraTrips(raw, v *results.Variant) string {
	if raw.Roundtrips == nil || v.Roundtrips == nil {
		return "round trips not captured"
	}
	_, a := raw.Roundtrips.Commands()
	_, b := v.Roundtrips.Commands()
	return fmt.Sprintf("round trips %+g per request (%s against %s)", b-a, num(b), num(a))
}

// change answers questions 2 and 3 for one pair: the commands each sends, then the
// change in QPS and p99 from base to v.
func (d *data) change(field string, base, v *results.Variant) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s sends %s; %s sends %s. ", sharedBy(field, v),
		fieldOf(base, field), commandsText(base), fieldOf(v, field), commandsText(v))
	for i, u := range []string{units.QPS, units.P99} {
		if i > 0 {
			b.WriteString("; ")
		}
		name := map[string]string{units.QPS: "QPS", units.P99: "p99"}[u]
		c, err := stats.ChangeOf(d.sample(base, u), d.sample(v, u), u, stats.DefaultNoise)
		if err != nil {
			fmt.Fprintf(&b, "%s not comparable (%v)", name, err)
			continue
		}
		fmt.Fprintf(&b, "%s %s", name, changeText(c))
	}
	b.WriteString(".")
	return b.String()
}

// changeText is criterion's "[lo mid hi] (p = …, n = …) verdict" with warnings beside it.
func changeText(c stats.Change) string {
	s := fmt.Sprintf("[%s %s %s] (%s) %s", pct(c.Lo), pct(c.Mid), pct(c.Hi), pn(c.Comparison), c.Verdict)
	return s + warn(c.Warnings)
}

func commandsText(v *results.Variant) string {
	if !v.DB {
		return "nothing to the database"
	}
	if v.Roundtrips == nil {
		return "commands not captured"
	}
	cmds, trips := v.Roundtrips.Commands()
	return fmt.Sprintf("%s per request (%s, %s)", commandList(v.Roundtrips), count(cmds, "command"), count(trips, "round trip"))
}

// count writes n with its noun, plural unless n is exactly 1.
func count(n float64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return num(n) + " " + noun + "s"
}
