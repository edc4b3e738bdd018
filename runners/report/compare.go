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

// compareUnits are the metrics compare judges, in the order it prints them.
var compareUnits = []string{units.QPS, units.P50, units.P99, units.P999, units.AppCPU, units.DBCPU, units.GenCPU, units.Roundtrips, units.Errors}

// Comparison is compare's outcome: a change per variant and metric that both runs
// measured validly, and what could not be compared.
type Comparison struct {
	Noise   float64
	Rows    []ChangeRow
	OnlyOld []string // variants valid only in the old run
	OnlyNew []string
	Invalid []string // "name: reason (old|new run)"
	Errors  []string // metrics that could not be compared, with why
}

// ChangeRow is one variant's change in one metric.
type ChangeRow struct {
	Variant string
	Unit    string
	Change  stats.Change
}

// Compare compares every variant valid in both runs, criterion-style, judging each
// change against noise (a fraction, stats.DefaultNoise = 3%).
func Compare(old, new *results.Run, noise float64) (*Comparison, error) {
	if noise < 0 || noise >= 1 {
		return nil, fmt.Errorf("report: noise %v: want a fraction in [0, 1), e.g. 0.03 for 3%%", noise)
	}
	od, err := load(old)
	if err != nil {
		return nil, fmt.Errorf("old run: %w", err)
	}
	nd, err := load(new)
	if err != nil {
		return nil, fmt.Errorf("new run: %w", err)
	}
	c := &Comparison{Noise: noise}
	for _, side := range []struct {
		d    *data
		name string
	}{{od, "old"}, {nd, "new"}} {
		for _, v := range side.d.invalid {
			c.Invalid = append(c.Invalid, fmt.Sprintf("%s: %s (%s run)", v.Name, reason(v), side.name))
		}
	}
	newByName := map[string]*results.Variant{}
	for _, v := range nd.valid {
		newByName[v.Name] = v
	}
	seen := map[string]bool{}
	for _, ov := range od.valid {
		nv := newByName[ov.Name]
		if nv == nil {
			c.OnlyOld = append(c.OnlyOld, ov.Name)
			continue
		}
		seen[ov.Name] = true
		for _, u := range compareUnits {
			a, b := od.sample(ov, u), nd.sample(nv, u)
			if len(a) == 0 || len(b) == 0 {
				continue // not measured on one side (CPU of a remote target)
			}
			ch, err := stats.ChangeOf(a, b, u, noise)
			if err != nil {
				c.Errors = append(c.Errors, fmt.Sprintf("%s %s: %v", ov.Name, u, err))
				continue
			}
			c.Rows = append(c.Rows, ChangeRow{Variant: ov.Name, Unit: u, Change: ch})
		}
	}
	for _, v := range nd.valid {
		if !seen[v.Name] {
			c.OnlyNew = append(c.OnlyNew, v.Name)
		}
	}
	return c, nil
}

// String renders the comparison as criterion prints it: the variant, then per metric
// "change: [lo mid hi] (p = …, n = …) verdict" with any warning beside it.
func (c *Comparison) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "noise threshold %.1f%%; p from the Mann-Whitney U test, alpha %.2f; [lo mid hi] is the 95%% interval of the change of the median\n\n", 100*c.Noise, stats.Alpha)
	last := ""
	for _, r := range c.Rows {
		if r.Variant != last {
			if last != "" {
				b.WriteString("\n")
			}
			b.WriteString(r.Variant + "\n")
			last = r.Variant
		}
		ch := r.Change
		fmt.Fprintf(&b, "  %-15s change: [%s %s %s] (%s) %s%s\n", r.Unit, pct(ch.Lo), pct(ch.Mid), pct(ch.Hi), pn(ch.Comparison), ch.Verdict, warn(ch.Warnings))
	}
	if len(c.Rows) == 0 {
		b.WriteString("no variant was measured validly in both runs\n")
	}
	list := func(title string, xs []string) {
		if len(xs) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n%s:\n", title)
		for _, x := range xs {
			b.WriteString("  " + x + "\n")
		}
	}
	list("only in the old run", c.OnlyOld)
	list("only in the new run", c.OnlyNew)
	list("invalid, not compared", c.Invalid)
	list("not comparable", c.Errors)
	return b.String()
}

// Regressions counts the rows whose verdict is regressed.
func (c *Comparison) Regressions() int {
	n := 0
	for _, r := range c.Rows {
		if r.Change.Verdict == stats.Regressed {
			n++
		}
	}
	return n
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

// warn puts warnings in brackets beside the number they qualify; "old: X" and
// "new: X" say the same of both sides, so they are said once.
func warn(ws []string) string {
	if len(ws) == 0 {
		return ""
	}
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
