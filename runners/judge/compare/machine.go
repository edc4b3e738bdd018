package compare

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// Yardstick is how fast each run's machine was, and whether absolute figures are
// judged relative to it.
type Yardstick struct {
	Old *Side `json:"old,omitempty"` // nil: the run has no yardstick
	New *Side `json:"new,omitempty"`
	// Speed is the new machine's speed over the old one's: old trial time over new
	// (above 1: the new machine is faster), yardstickRatio.
	Speed *stats.Estimate `json:"speed,omitempty"`
	// Normalised: absolute figures are judged relative to Speed.
	Normalised bool `json:"normalised"`
	// Moved: Speed lies beyond the noise threshold (environment changed).
	Moved bool `json:"moved"`
	// Hello are the variants without a database (the HTTP stack alone): a second
	// yardstick, checked against the first.
	Hello []Hello `json:"hello,omitempty"`
	// Contradicted: a hello variant disagrees with the yardstick, so absolute figures
	// cannot be judged (canttell.go).
	Contradicted bool `json:"contradicted"`
	// Kernel is the kernel's part's speed, new over old (kernelRatio): nil
	// when a run did not time it. KernelAgrees: it agrees with Speed within the noise.
	Kernel       *stats.Estimate `json:"kernel_speed,omitempty"`
	KernelAgrees bool            `json:"kernel_agrees"`
	// Outside is the CPU other processes took during each run's slices; nil when a
	// run did not measure it.
	Outside *Outside `json:"outside_cpu,omitempty"`
}

// Outside is how many cores processes other than the target, the database and dbbench
// kept busy during each run's measured slices (the median over the slices of the
// variants compared: results.Repetition.OutsideCPU).
type Outside struct {
	Old Num `json:"old_cores"`
	New Num `json:"new_cores"`
	// Differs: the two differ by more than outsideMargin of the machine's cores.
	Differs bool `json:"differs"`
}

// outsideMargin is the share of the machine's cores by which the CPU other processes
// took may differ between two runs before absolute figures cannot be told: on 2 cores,
// a tenth of a core, which can slow the measured processes by up to 5%, more than the
// noise threshold.
const outsideMargin = 0.05

// cores is the run's machine's cores (its environment's cpu-count), 2 when unknown.
func cores(r *results.Run) int {
	if n, err := strconv.Atoi(r.Environment["cpu-count"]); err == nil && n > 0 {
		return n
	}
	return 2
}

// outsideCPU compares the CPU other processes took in the two runs' slices.
func outsideCPU(p pairing, cores int) *Outside {
	side := func(vs map[string]*results.Variant) []float64 {
		var out []float64
		for _, k := range p.keys {
			for _, rep := range vs[k].Reps {
				if rep.OutsideCPU != nil {
					out = append(out, *rep.OutsideCPU)
				}
			}
		}
		return out
	}
	a, b := side(p.old), side(p.new)
	if len(a) < 3 || len(b) < 3 {
		return nil
	}
	o := &Outside{Old: Num(stats.Median(a)), New: Num(stats.Median(b))}
	o.Differs = math.Abs(float64(o.New-o.Old)) > outsideMargin*float64(cores)
	return o
}

// Side is one run's yardstick.
type Side struct {
	Work     string    `json:"work"`
	Trials   int       `json:"trials"`
	Median   Num       `json:"median_seconds"` // of a trial, over all readings
	Lo       Num       `json:"lo_seconds"`     // benchstat's 95% interval of the median
	Hi       Num       `json:"hi_seconds"`
	Readings []Reading `json:"readings"`
}

// Reading is one moment's median trial, which shows how the machine drifted in a run.
type Reading struct {
	Phase  string `json:"phase"`
	Trials int    `json:"trials"`
	Median Num    `json:"median_seconds"`
}

// Hello is a hello variant's QPS, new over old.
type Hello struct {
	Variant string         `json:"variant"`
	Ratio   stats.Estimate `json:"ratio"`
	// Moved: the ratio lies beyond the noise threshold, as it is.
	Moved bool `json:"moved"`
	// Agrees: relative to the yardstick the hello variant is unchanged, its interval
	// widened by the between-run spread of QPS (only when the runs are normalised).
	Agrees bool `json:"agrees"`
}

// norm is what the absolute rows need of the yardstick.
type norm struct {
	on    bool // judge relative to speed
	speed stats.Estimate
	moved bool
	// kernel is the kernel's part's speed; kernelOff: it disagrees with speed, so the
	// machine changed in a way one speed cannot describe.
	kernel    stats.Estimate
	kernelOff bool
}

func machine(old, new *results.Run, margin float64, res *Result) norm {
	y := &res.Yardstick
	y.Old, y.New = side(old.Yardstick), side(new.Yardstick)
	var n norm
	e, err := yardstickRatio(old.Yardstick, new.Yardstick)
	var few fewTrials
	switch {
	case errors.Is(err, errNoYardstick):
		res.Notes = append(res.Notes, missing(y.Old == nil, y.New == nil))
	case errors.As(err, &few):
		res.Notes = append(res.Notes, say("yardstick-few-trials", map[string]any{"Old": few.old, "New": few.new}))
	case err != nil:
		res.Notes = append(res.Notes, say("yardstick-unread", map[string]any{"Err": err}))
	default:
		n.speed = e
		n.on, y.Speed, y.Normalised = true, &e, true
		n.moved = judge(n.speed, units.Higher, margin) != Unchanged
		y.Moved = n.moved
		kernelCheck(old, new, margin, &n, res)
	}
	return n
}

// kernelCheck compares the kernel's part of the yardstick with the fixed work: a
// kernel that got slower (or faster) alone moves every request and not the fixed work.
// A run without kernel trials is not checked, with a note.
func kernelCheck(old, new *results.Run, margin float64, n *norm, res *Result) {
	e, err := kernelRatio(old.Yardstick, new.Yardstick)
	switch {
	case errors.Is(err, errNoYardstick):
		res.Notes = append(res.Notes, say("no-kernel-yardstick", nil))
		return
	case err != nil:
		res.Notes = append(res.Notes, say("kernel-yardstick-unread", map[string]any{"Err": err}))
		return
	}
	n.kernel = e
	n.kernelOff = judge(quotient(n.kernel, n.speed), units.Higher, margin) != Unchanged
	res.Yardstick.Kernel, res.Yardstick.KernelAgrees = &e, !n.kernelOff
}

func missing(old, new bool) string {
	which := "old run has no yardstick"
	switch {
	case old && new:
		which = "neither run has a yardstick"
	case new:
		which = "new run has no yardstick"
	}
	return say("no-yardstick", map[string]any{"Which": which, "Label": NotNormalised})
}

func side(y *results.Yardstick) *Side {
	s, err := yardstickSummary(y)
	if err != nil {
		return nil
	}
	out := &Side{Work: y.Work, Trials: s.N, Median: Num(s.Center), Lo: Num(s.Lo), Hi: Num(s.Hi)}
	for _, r := range y.Readings {
		if len(r.Trials) == 0 {
			continue
		}
		m, err := yardstickSummary(&results.Yardstick{Readings: []*results.Reading{r}})
		if err == nil {
			out.Readings = append(out.Readings, Reading{Phase: r.Phase, Trials: len(r.Trials), Median: Num(m.Center)})
		}
	}
	return out
}

// hellos estimates each hello variant's QPS ratio and checks it against the yardstick,
// its interval widened by tau, the between-run spread of QPS (spread.go): a hello
// variant is one variant of one run, and moves between runs as much as any other.
func hellos(p pairing, n norm, margin, tau float64) []Hello {
	var out []Hello
	for _, k := range p.keys {
		o, nv := p.old[k], p.new[k]
		if o.DB {
			continue
		}
		e, err := stats.TwoSampleRatio(values(o, units.QPS), values(nv, units.QPS))
		if err != nil {
			continue // a hello without QPS figures is not a yardstick
		}
		h := Hello{Variant: k, Ratio: e, Moved: judge(e, units.Higher, margin) != Unchanged}
		h.Agrees = n.on && judge(widen(quotient(e, n.speed), tau), units.Higher, margin) == Unchanged
		out = append(out, h)
	}
	return out
}

// helloNote says, for runs without a yardstick, when the hello variants moved: the one
// hint such runs give of a changed machine. With a yardstick, a hello variant that
// disagrees is a reason absolute figures cannot be judged (helloCannotTell).
func helloNote(hs []Hello, n norm) string {
	if n.on {
		return ""
	}
	var parts []string
	for _, h := range hs {
		if h.Moved {
			parts = append(parts, fmt.Sprintf("%s %s", short(h.Variant), times(h.Ratio)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return say("hellos-moved", map[string]any{"Hellos": strings.Join(parts, ", ")})
}
