package run

import (
	"fmt"
	"io"
	"os"
	"time"

	"dbbench/runners/matrix"
)

// progress tells a person where the run is: on a terminal one line rewritten in place,
// otherwise plain log lines.
type progress struct {
	w        io.Writer
	tty      bool
	variants int
	reps     int
	perRep   time.Duration // warm-up + duration: the bulk of one measured step
	start    time.Time
	steps    int // measured steps done
}

func newProgress(w io.Writer, variants, reps int, perRep time.Duration) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progress{w: w, tty: tty, variants: variants, reps: reps, perRep: perRep, start: time.Now()}
}

// phase reports variant i (0-based) entering a phase; rep 0 is the checking pass.
func (p *progress) phase(i, rep int, v matrix.Variant, what string) {
	total := p.variants * p.reps
	var line string
	if rep == 0 {
		line = fmt.Sprintf("[check %d/%d] %s: %s", i+1, p.variants, v.Key(), what)
	} else {
		// ETA from the measured steps so far once there are some, else from the plan.
		left := time.Duration(total-p.steps) * (p.perRep + time.Second)
		if p.steps > 0 {
			left = time.Since(p.start) / time.Duration(p.steps) * time.Duration(total-p.steps)
		}
		line = fmt.Sprintf("[rep %d/%d, variant %d/%d, ETA %s] %s: %s",
			rep, p.reps, i+1, p.variants, left.Round(time.Second), v.Key(), what)
		if p.steps == 0 {
			p.start = time.Now()
		}
		p.steps++
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		return
	}
	fmt.Fprintln(p.w, line)
}

func (p *progress) done() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}
