package run

import (
	"fmt"
	"io"
	"os"
	"time"

	"dbbench/runners/matrix"
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
	p.line(fmt.Sprintf("[check %d/%d] %s: %s", i+1, p.variants, v.Key(), what))
}

// note reports a step.
func (p *progress) note(s string) { p.line(s) }

// slice reports slice n of a language starting, on the variant key, with what the
// plan says of its progress.
func (p *progress) slice(lang string, n int, spent, budget time.Duration, status, key string) {
	if status != "" {
		status = ", " + status
	}
	p.line(fmt.Sprintf("[%s slice %d] %s of %s%s: %s", lang, n,
		spent.Round(time.Second), budget.Round(time.Second), status, key))
}

// planned reports slice n of planned: the time spent, and the time left at the pace so
// far (the first slice has no pace yet).
func (p *progress) planned(lang string, n, planned int, spent time.Duration, status, key string) {
	if status != "" {
		status = ", " + status
	}
	left := "?"
	if n > 1 {
		left = (spent / time.Duration(n-1) * time.Duration(planned-n+1)).Round(time.Second).String()
	}
	p.line(fmt.Sprintf("[%s slice %d of %d] %s spent, about %s left%s: %s", lang, n, planned,
		spent.Round(time.Second), left, status, key))
}

func (p *progress) line(s string) {
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
