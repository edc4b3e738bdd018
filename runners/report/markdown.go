package report

import (
	"fmt"
	"slices"
	"strings"

	"dbbench/runners/results"
	"dbbench/runners/units"
)

// notes numbers the distinct warnings of a table, so a cell carries a short mark beside
// its number and the warning itself is written once under the table.
type notes struct{ list []string }

func (n *notes) mark(ws []string) string {
	if len(ws) == 0 {
		return ""
	}
	var marks []string
	for _, w := range ws {
		i := slices.Index(n.list, w)
		if i < 0 {
			n.list = append(n.list, w)
			i = len(n.list) - 1
		}
		marks = append(marks, fmt.Sprint(i+1))
	}
	return " (!" + strings.Join(marks, ",") + ")"
}

// column is one metric of the variants table.
type column struct {
	head   string
	unit   string
	factor float64 // display unit per bench.txt unit
	digits int
}

var columns = []column{
	{"QPS", units.QPS, 1, 0},
	{"p50 ms", units.P50, 1e3, 3},
	{"p99 ms", units.P99, 1e3, 3},
	{"p99.9 ms", units.P999, 1e3, 3},
	{"app CPU µs/req", units.AppCPU, 1e6, 1},
	{"db CPU µs/req", units.DBCPU, 1e6, 1},
	{"gen CPU µs/req", units.GenCPU, 1e6, 1},
	{"round trips/req", units.Roundtrips, 1, 0},
	{"errors/req", units.Errors, 1, 4},
}

// variantRows renders the variants table's cells, warnings as marks into n.
func (d *data) variantRows(n *notes) (head []string, rows [][]string) {
	head = []string{"variant"}
	for _, c := range columns {
		head = append(head, c.head)
	}
	for _, v := range d.valid {
		row := []string{label(v)}
		for _, c := range columns {
			s, ok := d.summary(v, c.unit)
			if !ok {
				row = append(row, "not measured")
				continue
			}
			row = append(row, scaled(s, c.factor, c.digits, n.mark(s.Warnings)))
		}
		rows = append(rows, row)
	}
	return head, rows
}

func mdTable(b *strings.Builder, head []string, rows [][]string) {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	line := func(cells []string) {
		for i := range cells {
			cells[i] = esc(cells[i])
		}
		fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
	}
	line(slices.Clone(head))
	seps := make([]string, len(head))
	for i := range seps {
		seps[i] = "---"
	}
	fmt.Fprintf(b, "|%s|\n", strings.Join(seps, "|"))
	for _, r := range rows {
		line(slices.Clone(r))
	}
	b.WriteString("\n")
}

// Markdown renders report.md: the three questions answered in sentences first, then
// every variant, the hello ceiling, the invalid variants and the environment.
func Markdown(r *results.Run) ([]byte, error) {
	d, err := load(r)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("# dbbench report\n\n")
	lines, alerts := d.preface()
	for _, p := range lines {
		b.WriteString(p + "\n\n")
	}
	for _, a := range alerts {
		b.WriteString("**" + a + "**\n\n")
	}
	for _, q := range d.questions() {
		fmt.Fprintf(&b, "## %s\n\n", q.Title)
		if len(q.Answers) == 0 {
			b.WriteString(q.NoAnswers + "\n\n")
		}
		for _, a := range q.Answers {
			b.WriteString("- " + a + "\n")
		}
		if len(q.Answers) > 0 {
			b.WriteString("\n")
		}
	}

	b.WriteString("## Every variant\n\n")
	b.WriteString("Medians of the repetitions with benchstat's 95% confidence interval (± the larger side, in percent). " +
		"A mark (!n) beside a number refers to the warning n below the table.\n\n")
	var n notes
	head, rows := d.variantRows(&n)
	if len(rows) == 0 {
		b.WriteString("No valid variant was measured.\n\n")
	} else {
		mdTable(&b, head, rows)
	}
	for i, w := range n.list {
		fmt.Fprintf(&b, "(!%d) %s\n\n", i+1, w)
	}

	b.WriteString("## HTTP-only ceiling\n\n")
	b.WriteString(strings.Join(d.ceiling(), "\n") + "\n\n")

	b.WriteString("## Round trips\n\n")
	mdTable(&b, []string{"variant", "commands per request", "commands", "round trips", "matches the matrix"}, d.tripRows())

	b.WriteString("## Invalid variants\n\n")
	if len(d.invalid) == 0 {
		b.WriteString("None.\n\n")
	}
	for _, v := range d.invalid {
		fmt.Fprintf(&b, "- %s: %s\n", label(v), reason(v))
	}
	if len(d.invalid) > 0 {
		b.WriteString("\n")
	}

	b.WriteString("## Flagged variants\n\n")
	flagged := d.flagged()
	if len(flagged) == 0 {
		b.WriteString("None.\n")
	}
	for _, f := range flagged {
		b.WriteString("- " + f + "\n")
	}
	b.WriteString("\n")

	b.WriteString("## Stability across rounds\n\n")
	sentence, head, rows := roundsText(rounds(d.run))
	b.WriteString(roundsIntro + " " + sentence + "\n\n")
	if len(rows) > 0 {
		mdTable(&b, head, rows)
	}

	b.WriteString("## Environment\n\n")
	mdTable(&b, []string{"setting", "value"}, d.environment())
	return []byte(b.String()), nil
}

// flagged lists "variant: flag" for every flag a valid variant carries (saturated, …).
func (d *data) flagged() []string {
	var out []string
	for _, v := range d.run.Variants {
		for _, f := range v.Flags {
			out = append(out, label(v)+": "+f)
		}
	}
	return out
}

// preface says what was run, and in alerts how far the data can be trusted.
func (d *data) preface() (lines, alerts []string) {
	r := d.run
	s := r.Settings
	lines = []string{fmt.Sprintf("Run started %s, status %s; preset %s, provider %s, %d rows, %d repetitions of %s (warm-up %s) per variant, %s.",
		r.Started.UTC().Format("2006-01-02 15:04:05 UTC"), r.Status, s.Preset, s.Provider, s.Rows, s.Reps, s.Duration, s.Warmup, loadShape(s))}
	if r.Status != "complete" {
		msg := fmt.Sprintf("This run is %s: only what it measured is reported.", r.Status)
		if r.Error != "" {
			msg += " Error: " + r.Error
		}
		alerts = append(alerts, msg)
	}
	minReps := 0
	for i, v := range d.valid {
		if i == 0 || len(v.Reps) < minReps {
			minReps = len(v.Reps)
		}
	}
	switch {
	case len(d.valid) > 0 && minReps < 4:
		alerts = append(alerts, fmt.Sprintf("Too few repetitions: as few as %d per variant. A 95%% confidence interval of a median needs at least 6, and the Mann-Whitney U test cannot find any difference significant at alpha 0.05 with fewer than 4 on each side; every such number says so beside it.", minReps))
	case len(d.valid) > 0 && minReps < 6:
		alerts = append(alerts, fmt.Sprintf("Few repetitions: as few as %d per variant: the U test can detect differences, but a 95%% confidence interval of a median needs at least 6; every such number says so beside it.", minReps))
	}
	return lines, alerts
}

func loadShape(s results.Settings) string {
	if s.Rate > 0 {
		return fmt.Sprintf("open loop at %.0f req/s", s.Rate)
	}
	return fmt.Sprintf("closed loop with %d connections", s.Connections)
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
		out = append(out, fmt.Sprintf("%s answers without the database at %s req/s: no %s variant can exceed this.",
			label(v), scaled(s, 1, 0, warn(s.Warnings)), v.Lang))
	}
	if len(out) == 0 {
		out = append(out, "No valid hello variant was measured, so the run has no HTTP-only ceiling.")
	}
	return out
}

func (d *data) tripRows() [][]string {
	var rows [][]string
	for _, v := range d.valid {
		if v.Roundtrips == nil {
			continue
		}
		cmds, trips := v.Roundtrips.Commands()
		match := "yes"
		if !v.Roundtrips.Match {
			match = "no: " + v.Roundtrips.Mismatch
		}
		rows = append(rows, []string{label(v), commandList(v.Roundtrips), num(cmds), num(trips), match})
	}
	return rows
}

func reason(v *results.Variant) string {
	if v.InvalidReason != "" {
		return v.InvalidReason
	}
	return "marked invalid without a reason"
}

func (d *data) environment() [][]string {
	s := d.run.Settings
	rows := [][]string{
		{"preset", s.Preset}, {"provider", s.Provider}, {"rows", fmt.Sprint(s.Rows)},
		{"load", loadShape(s)}, {"keep-alive", fmt.Sprint(s.KeepAlive)},
		{"warm-up", s.Warmup}, {"duration", s.Duration}, {"repetitions", fmt.Sprint(s.Reps)},
		{"seed", fmt.Sprint(s.Seed)}, {"round-trip requests", fmt.Sprint(s.RoundtripRequests)},
		{"max error rate", fmt.Sprint(s.MaxErrorRate)},
	}
	keys := make([]string, 0, len(d.run.Environment))
	for k := range d.run.Environment {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		rows = append(rows, []string{k, d.run.Environment[k]})
	}
	return rows
}
