package run

import (
	"fmt"
	"io"
	"os"
	"time"

	"dbbench/runners/define/matrix"
)

// progress tells a person where the run is: on a terminal one line rewritten in place,
// otherwise plain log lines, one per step.
type progress struct {
	w        io.Writer
	tty      bool
	variants int
}

func newProgress(w io.Writer, variants int) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progress{w: w, tty: tty, variants: variants}
}

// phase reports variant i (0-based) being checked.
func (p *progress) phase(i int, v matrix.Variant, what string) {
	p.line(fmt.Sprintf("[check %d/%d] %s: %s", i+1, p.variants, matrix.ShortKey(v.Key()), what))
}

// note reports a step.
func (p *progress) note(s string) { p.line(s) }

// slice reports slice n of a language starting, on the variant key, with what the
// plan says of its progress: the time spent of the budget, or, without a budget (a
// sweep's run, which stops at the fewest pairs), the time spent alone.
func (p *progress) slice(lang string, n int, spent, budget, estimate time.Duration, status, key string) {
	if status != "" {
		status = ", " + status
	}
	// The stopping rule ends the phase once every comparison is decided, so the
	// budget bounds the time left; the plan's estimate (blocks left at their pace,
	// negative when it has none) foretells it.
	bound := max(budget-spent, 0).Round(time.Second)
	left := fmt.Sprintf(", ≤%s left", bound)
	switch {
	case budget <= 0:
		left = ""
	case estimate >= 0 && spent >= budget: // the fewest pairs go on past the budget
		left = fmt.Sprintf(", about %s left (past the budget)", estimate.Round(time.Second))
	case estimate >= 0:
		left = fmt.Sprintf(", about %s left (≤%s)", min(estimate.Round(time.Second), bound), bound)
	}
	p.line(fmt.Sprintf("[%s slice %d] %s spent%s%s: %s", lang, n, spent.Round(time.Second), left, status, key))
}

// planned reports slice n of planned: the time spent, and the time left at the pace so
// far, or, on the first slice, at the plan's estimate of a slice (each; 0: none).
func (p *progress) planned(lang string, n, planned int, spent, each time.Duration, status, key string) {
	if status != "" {
		status = ", " + status
	}
	left := TimeLeft(spent, n-1, planned, time.Duration(planned)*each)
	p.line(fmt.Sprintf("[%s slice %d of %d] %s spent, about %s left%s: %s", lang, n, planned,
		spent.Round(time.Second), left, status, key))
}

// TimeLeft is the time left of planned steps when done of them took spent, at their
// pace; before the first is done, it is estimate, the plan's guess of the whole, or "?"
// when the plan has none.
func TimeLeft(spent time.Duration, done, planned int, estimate time.Duration) string {
	switch {
	case done > 0:
		return (spent / time.Duration(done) * time.Duration(max(planned-done, 0))).Round(time.Second).String()
	case estimate > 0:
		return estimate.Round(time.Second).String()
	}
	return "?"
}

// maxLine is the longest progress line: one line of a terminal, whatever it says.
const maxLine = 120

func (p *progress) line(s string) {
	if r := []rune(s); len(r) > maxLine {
		s = string(r[:maxLine-1]) + "…"
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", s)
		return
	}
	fmt.Fprintln(p.w, s)
}

func (p *progress) done() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}
