package compare

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/stats"

	"dbbench/runners/units"
)

// WriteText writes the comparison for a person: the summary first (environments,
// yardstick, verdicts by kind, the gate, the largest changes, notes), then the full
// table of each kind, then what was not compared.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	r.header(&b)
	r.environmentText(&b)
	r.yardstickText(&b)
	r.verdictsText(&b)
	r.largestText(&b)
	list(&b, "notes", r.Notes)
	r.tables(&b)
	list(&b, "only in the old run", r.OnlyOld)
	list(&b, "only in the new run", r.OnlyNew)
	list(&b, "invalid, not compared", r.Invalid)
	_, err := io.WriteString(w, b.String())
	return err
}

// String is WriteText's output.
func (r *Result) String() string {
	var b strings.Builder
	r.WriteText(&b)
	return b.String()
}

func (r *Result) header(b *strings.Builder) {
	fmt.Fprintf(b, "dbbench compare: %s → %s\n", r.Old.Label, r.New.Label)
	for _, s := range []struct {
		name string
		i    RunInfo
	}{{"old", r.Old}, {"new", r.New}} {
		fmt.Fprintf(b, "  %s: started %s, preset %s, %s", s.name, s.i.Started.UTC().Format(time.DateTime+" MST"), units.OrDash(s.i.Preset), units.OrDash(string(s.i.Status)))
		if s.i.Commit != "" {
			fmt.Fprintf(b, ", commit %s", abbrev(s.i.Commit, 12))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func (r *Result) environmentText(b *strings.Builder) {
	e := r.Environment
	diffs := func(title string, ds []Difference) {
		if len(ds) == 0 {
			fmt.Fprintf(b, "%s: the same\n", title)
			return
		}
		fmt.Fprintf(b, "%s: %d %s\n", title, len(ds), units.Plural(len(ds), "key differs", "keys differ"))
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		for _, d := range ds {
			fmt.Fprintf(tw, "  %s\t%s\t→ %s\n", d.Key, shown(d.Old), shown(d.New))
		}
		tw.Flush()
	}
	diffs("environment", e.Differences)
	diffs("settings", e.Settings)
}

func (r *Result) yardstickText(b *strings.Builder) {
	y := r.Yardstick
	trial := ""
	if y.Old != nil && y.New != nil {
		trial = fmt.Sprintf(" (a trial of the fixed work: old %s, new %s, medians of %d and %d)", units.Millis(float64(y.Old.Median)), units.Millis(float64(y.New.Median)), y.Old.Trials, y.New.Trials)
	}
	relative := "; absolute figures are judged relative to it"
	if !r.judged(Absolute) {
		relative = ""
	}
	switch {
	case y.Normalised && y.Moved:
		fmt.Fprintf(b, "yardstick: machine speed new/old %s%s: %s%s\n", times(*y.Speed), trial, EnvironmentChanged, relative)
	case y.Normalised:
		fmt.Fprintf(b, "yardstick: machine speed new/old %s%s: the same within the noise%s\n", times(*y.Speed), trial, relative)
	case y.Old == nil && y.New == nil:
		fmt.Fprintf(b, "yardstick: neither run has one: absolute figures are shown as they are (%s), and cannot be told\n", NotNormalised)
	case y.Old == nil:
		fmt.Fprintf(b, "yardstick: the old run has none: absolute figures are shown as they are (%s), and cannot be told\n", NotNormalised)
	case y.New == nil:
		fmt.Fprintf(b, "yardstick: the new run has none: absolute figures are shown as they are (%s), and cannot be told\n", NotNormalised)
	default:
		fmt.Fprintf(b, "yardstick: not usable (see notes)%s: absolute figures are shown as they are (%s), and cannot be told\n", trial, NotNormalised)
	}
	if len(y.Hello) > 0 {
		var parts []string
		for _, h := range y.Hello {
			s := short(h.Variant) + " " + times(h.Ratio)
			if y.Normalised {
				s += map[bool]string{true: " agrees", false: " disagrees"}[h.Agrees]
			}
			parts = append(parts, s)
		}
		how := "QPS new/old"
		if !y.Normalised {
			how = "QPS new/old, as they are"
		}
		fmt.Fprintf(b, "  hello variants (the HTTP stack alone, %s): %s\n", how, strings.Join(parts, "; "))
	}
	if y.Kernel != nil {
		agrees := map[bool]string{true: "agrees with the fixed work", false: "disagrees with the fixed work"}[y.KernelAgrees]
		fmt.Fprintf(b, "  kernel part (a loopback TCP echo, new/old): %s %s\n", times(*y.Kernel), agrees)
	}
	if o := y.Outside; o != nil {
		fmt.Fprintf(b, "  other processes (not the target, the database or dbbench) during the slices: old %.2f cores, new %.2f (medians)%s\n",
			float64(o.Old), float64(o.New), map[bool]string{true: ": they differ", false: ""}[o.Differs])
	}
	fmt.Fprintf(b, "  normalisation: %s\n", r.normalisation())
	b.WriteString("\n")
}

// normalisation says which normalisation the absolute figures were judged by, and why.
func (r *Result) normalisation() string {
	y := r.Yardstick
	if !r.judged(Absolute) {
		return "none: absolute figures cannot be judged (the gate says why)"
	}
	var checks []string
	if y.Kernel != nil {
		checks = append(checks, "its kernel part")
	}
	if len(y.Hello) > 0 {
		checks = append(checks, "the hello variants")
	}
	why := "nothing checks it (no kernel part in both runs, no hello variant)"
	if len(checks) > 0 {
		why = strings.Join(checks, " and ") + " agree with it"
	}
	return "the fixed work's speed, as " + why + ": a rate is judged against old × speed, a cost per request against old ÷ speed"
}

func (r *Result) verdictsText(b *strings.Builder) {
	fmt.Fprintf(b, "verdicts (noise threshold %.1f%%: a change counts when its whole 95%% interval lies beyond it)\n", 100*r.Margin)
	for _, s := range r.Summary {
		switch s.Kind {
		case Ratio:
			fmt.Fprintf(b, "  %-21s %d regressed, %d improved, %d unchanged%s (ratios inside each run, compared as they are)", "within-run ratios", s.Regressed, s.Improved, s.Unchanged, cannotText(s))
			if s.WithinSpread > 0 {
				fmt.Fprintf(b, "; %d more %s", s.WithinSpread, WithinSpread)
			}
			if len(r.RatioSpread) > 0 && r.judged(Ratio) {
				fmt.Fprintf(b, "\n  %-21s the scatter of the comparisons' changes, added to every interval: %s", "between-run spread", spreadText(r.RatioSpread, ratioUnits))
			}
			b.WriteString("\n")
		case Count:
			fmt.Fprintf(b, "  %-21s %d changed (%d up, %d down), %d unchanged (any change beyond a count's exactness, whatever the noise)\n", "deterministic counts", s.Changed, s.Up, s.Down, s.Unchanged)
		case Absolute:
			how := "as they are, " + NotNormalised + ": without a yardstick in both runs a machine change cannot be told from a code change"
			switch {
			case !r.judged(Absolute):
				how = "not judged: see the gate"
			case r.Yardstick.Normalised:
				how = "relative to the yardstick"
				if r.Yardstick.Moved {
					how = "relative to the yardstick: " + EnvironmentChanged
				}
			}
			fmt.Fprintf(b, "  %-21s %d regressed, %d improved, %d unchanged%s (%s)", "absolute figures", s.Regressed, s.Improved, s.Unchanged, cannotText(s), how)
			if s.Explained > 0 {
				fmt.Fprintf(b, "; %d more changed as they are, which the yardstick explains", s.Explained)
			}
			if s.WithinSpread > 0 {
				fmt.Fprintf(b, "; %d more %s", s.WithinSpread, WithinSpread)
			}
			if len(r.Spread) > 0 && r.judged(Absolute) {
				fmt.Fprintf(b, "\n  %-21s the scatter of the variants' changes, added to every interval: %s", "between-run spread", spreadText(r.Spread, absoluteUnits))
			}
			b.WriteString("\n")
		}
	}
	r.gateText(b)
	b.WriteString("\n")
}

// gateText says what --fail-on regression decides, and, when some rows could not be
// judged, which and why, with the sure path beside it.
func (r *Result) gateText(b *strings.Builder) {
	g := r.Gate
	switch {
	case g.Fails:
		var names []string
		for _, k := range g.Variants {
			names = append(names, short(k))
		}
		fmt.Fprintf(b, "gate: %d %s normalisation, %d count %s, in %d %s (%s): --fail-on regression fails (exit status 3)\n",
			g.Regressions, units.Plural(g.Regressions, "regression that survives", "regressions that survive"), g.CountChanges, units.Plural(g.CountChanges, "change", "changes"),
			len(names), units.Plural(len(names), "variant", "variants"), strings.Join(names, ", "))
	case g.CannotTell:
		b.WriteString("gate: cannot tell: nothing regressed among what could be judged, but not everything could be: --fail-on regression exits with status 4\n")
	default:
		b.WriteString("gate: no regression survives normalisation and no count changed: --fail-on regression passes\n")
	}
	if g.NotGated > 0 {
		fmt.Fprintf(b, "  %d absolute %s not gated: a hello variant's own (%q)\n",
			g.NotGated, units.Plural(g.NotGated, "regression", "regressions"), HelloNotGated)
	}
	if !g.CannotTell {
		if s := max(r.Spread[units.AppCPU], r.Spread[units.QPS]); s > r.Margin && r.judged(Absolute) {
			fmt.Fprintf(b, "  req/s and app CPU move by up to ±%.1f%% from one run to the next here (the between-run spread): a smaller change needs %s\n", 100*s, say("ab-hint", nil))
		}
		return
	}
	for _, k := range Kinds {
		for _, c := range r.CannotTell {
			if c.Kind != k {
				continue
			}
			what := kindNames[k]
			if by := append(append([]string{}, c.Questions...), c.Units...); len(by) > 0 {
				what += " (" + strings.Join(by, ", ") + ")"
			}
			fmt.Fprintf(b, "  cannot tell, %s: %s\n", what, c.Reason)
		}
	}
	b.WriteString("  " + say("cannot-advice", nil) + "\n")
}

// kindNames name the kinds in the gate's lines.
var kindNames = map[Kind]string{Ratio: "within-run ratios", Count: "counts", Absolute: "absolute figures"}

// cannotText is ", N cannot tell" when a kind has such rows.
func cannotText(s KindSummary) string {
	if s.CannotTell == 0 {
		return ""
	}
	return fmt.Sprintf(", %d cannot tell", s.CannotTell)
}

func (r *Result) largestText(b *strings.Builder) {
	if len(r.Largest) == 0 {
		b.WriteString("largest changes: none beyond the noise\n\n")
		return
	}
	b.WriteString("largest changes\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, row := range r.Largest {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", row.Verdict, row.Kind, subject(row), metric(row), judged(row), strings.Join(row.Labels, "; "))
	}
	tw.Flush()
	b.WriteString("\n")
}

// tables are the full table of each kind, one line per variant and metric.
func (r *Result) tables(b *strings.Builder) {
	heads := map[Kind]string{
		Ratio:    "within-run ratios (the variant over its reference, measured in the same run; the change of that ratio)",
		Count:    "deterministic counts per request (medians over the slices)",
		Absolute: "absolute figures (medians; the change as it is, and the change the verdict judges)",
	}
	for _, k := range Kinds {
		var rows []Row
		for _, row := range r.Rows {
			if row.Kind == k {
				rows = append(rows, row)
			}
		}
		if len(rows) == 0 {
			continue
		}
		b.WriteString(heads[k] + "\n")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  verdict\tvariant\tmetric\told\tnew\tas is\tjudged [lo mid hi]\tlabels")
		for _, row := range rows {
			labels := strings.Join(append(append([]string{}, row.Labels...), row.Warnings...), "; ")
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", row.Verdict, subject(row), metric(row),
				value(row, row.Old), value(row, row.New), units.RatioChange(float64(row.AsIs.Mid)), judged(row), labels)
		}
		tw.Flush()
		b.WriteString("\n")
	}
}

func list(b *strings.Builder, title string, xs []string) {
	if len(xs) == 0 {
		return
	}
	b.WriteString(title + "\n")
	for _, x := range xs {
		b.WriteString("  - " + x + "\n")
	}
	b.WriteString("\n")
}

// subject names a row's variant briefly; a ratio adds its reference.
func subject(r Row) string {
	if r.Kind == Ratio {
		return short(r.Variant) + " vs " + r.Question + "=" + field(r.Versus, r.Question)
	}
	return short(r.Variant)
}

func metric(r Row) string {
	if r.Kind == Ratio {
		return r.Unit + " ratio"
	}
	return r.Unit
}

// judged formats the change the verdict rests on: a count's difference in its unit,
// else the interval of the relative change.
func judged(r Row) string {
	if r.Kind == Count {
		return fmt.Sprintf("%+.2f (%s)", float64(r.New-r.Old), units.RatioChange(float64(r.Judged.Mid)))
	}
	c := r.Judged
	return fmt.Sprintf("[%s %s %s]", units.RatioChange(float64(c.Lo)), units.RatioChange(float64(c.Mid)), units.RatioChange(float64(c.Hi)))
}

// value formats a figure in its unit: req/s whole, times in µs or ms, counts with two
// decimals unless whole, ratios with three.
func value(r Row, x Num) string {
	f := float64(x)
	switch {
	case r.Kind == Ratio:
		return fmt.Sprintf("%.3f", f)
	case r.Unit == units.QPS:
		return fmt.Sprintf("%.0f", f)
	case strings.HasSuffix(r.Unit, "sec/op"):
		if f < 1e-3 {
			return fmt.Sprintf("%.1fµs", f*1e6)
		}
		return units.Millis(f)
	case f == math.Trunc(f):
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.2f", f)
}

// times formats a ratio as "0.600× [0.594, 0.606]".
func times(e stats.Estimate) string {
	if !e.HasInterval() {
		return fmt.Sprintf("%.3f× [no interval]", e.Value)
	}
	f := func(v float64) string { return fmt.Sprintf("%.3f", v) }
	return units.Estimate(f(e.Value)+"×", f(e.Lo), f(e.Hi))
}

// short is a variant key without its key names: lang/server/layer/stmt/conn/pool=N,
// leaving out "none".
func short(key string) string {
	var parts []matrix.Part
	for _, p := range matrix.Parts(key) {
		switch {
		case p.Name == "" || p.Name == "pool":
			parts = append(parts, p)
		case p.Value != "none":
			parts = append(parts, matrix.Part{Value: p.Value})
		}
	}
	return matrix.Spell(parts)
}

// field is the value of name in a variant key, "?" without one.
func field(key, name string) string {
	if v, ok := matrix.ValueOf(key, name); ok {
		return v
	}
	return "?"
}

func shown(s string) string {
	if s == "" {
		return "(absent)"
	}
	return abbrev(s, 48)
}

func abbrev(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
