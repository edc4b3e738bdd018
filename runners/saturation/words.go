package saturation

import (
	"embed"
	"fmt"

	book "dbbench/runners/internal/words"
	"dbbench/runners/units"
)

//go:embed words.tmpl
var wordsFS embed.FS

// say fills one of the verdicts' sentences (words.tmpl); the package's own type words
// writes a verdict's reasons with them.
var say = book.Load(wordsFS, "words.tmpl").Say

// words writes a verdict's reasons.
type words struct {
	v *Verdict
	s Summary
}

// achieved: "achieved 188 of 400 req/s offered (47%)".
func (w words) achieved() string {
	if w.v.Offered <= 0 {
		return fmt.Sprintf("achieved %s req/s", rate(w.v.Achieved))
	}
	return fmt.Sprintf("achieved %s of %s req/s offered (%s)", rate(w.v.Achieved), rate(w.v.Offered), units.Share(w.v.Achieved/w.v.Offered))
}

// generator says how the generator fell behind, and whether for its own CPU or
// because it waited for a core (words.tmpl).
func (w words) generator() string {
	busy := units.Share(w.v.GeneratorBusy)
	if w.v.GeneratorBusy >= GeneratorBusyMax {
		late := ""
		if w.s.LateGenerator > 0 {
			late = units.Share(w.v.LateGenerator)
		}
		return say("generator-bottleneck", map[string]any{"Busy": busy, "Late": late})
	}
	return say("generator-late", map[string]any{
		"Late": units.Share(w.v.LateGenerator), "LateCount": w.s.LateGenerator, "Completed": w.s.Completed,
		"After": secs(w.s.LateAfter), "Busy": busy,
		"HeldUp": w.v.GeneratorBusy > 0 && w.v.GeneratorBusy < 0.5, "Used": w.v.GeneratorBusy > 0,
	})
}

// waits describes the measured queues whose share of the requests' time is at least
// atLeast (0: every one measured).
func (w words) waits(atLeast float64) []string {
	var out []string
	if p := w.v.PoolWait; p >= 0 && p >= atLeast {
		out = append(out, fmt.Sprintf("requests spent %s of their time waiting for a database connection from the pool (%s of waits)",
			units.Share(p), secs(w.s.Causes.PoolWaitSeconds)))
	}
	if q := w.v.Queue; q >= 0 && q >= atLeast {
		name := w.s.Causes.QueueName
		if name == "" {
			name = "the server's queue"
		}
		out = append(out, fmt.Sprintf("on average %.1f requests, %s of those in flight, waited in %s", w.s.Causes.QueueMean, units.Share(q), name))
	}
	return out
}

// secs writes seconds as a person reads a latency: 85 µs, 12.3 ms, 1.2 s.
func secs(x float64) string {
	switch {
	case x < 1e-3:
		return fmt.Sprintf("%.0f µs", x*1e6)
	case x < 1:
		return fmt.Sprintf("%.3g ms", x*1e3)
	default:
		return fmt.Sprintf("%.3g s", x)
	}
}

// rate writes requests per second: whole above 10, three digits below.
func rate(x float64) string {
	if x >= 10 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.3g", x)
}
