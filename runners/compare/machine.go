package compare

import (
	"errors"
	"fmt"
	"strings"

	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
	"dbbench/runners/yardstick"
)

// Yardstick is how fast each run's machine was, and whether absolute figures are
// judged relative to it.
type Yardstick struct {
	Old *Side `json:"old,omitempty"` // nil: the run has no yardstick
	New *Side `json:"new,omitempty"`
	// Speed is the new machine's speed over the old one's: old trial time over new
	// (above 1: the new machine is faster), yardstick.Ratio.
	Speed *Estimate `json:"speed,omitempty"`
	// Normalised: absolute figures are judged relative to Speed.
	Normalised bool `json:"normalised"`
	// Moved: Speed lies beyond the noise threshold (environment changed).
	Moved bool `json:"moved"`
	// Hello are the variants without a database (the HTTP stack alone): a second
	// yardstick, checked against the first.
	Hello []Hello `json:"hello,omitempty"`
	// Contradicted: most hello variants disagree with the yardstick, so absolute
	// figures do not count for the gate (contradicted).
	Contradicted bool `json:"contradicted"`
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
	Variant string   `json:"variant"`
	Ratio   Estimate `json:"ratio"`
	// Moved: the ratio lies beyond the noise threshold, as it is.
	Moved bool `json:"moved"`
	// Agrees: relative to the yardstick the hello variant is unchanged, its interval
	// widened by the between-run spread of QPS (only when the runs are normalised).
	Agrees bool `json:"agrees"`
	r      stats.RatioEstimate
}

// norm is what the absolute rows need of the yardstick.
type norm struct {
	on    bool // judge relative to speed
	speed stats.RatioEstimate
	moved bool
	// contradicted: most hello variants disagree with the yardstick beyond the
	// between-run spread, so the speed it gives is in doubt and absolute figures judged
	// relative to it do not count for the gate.
	contradicted bool
}

func machine(old, new *results.Run, noise float64, res *Result) norm {
	y := &res.Yardstick
	y.Old, y.New = side(old.Yardstick), side(new.Yardstick)
	var n norm
	e, err := yardstick.Ratio(old.Yardstick, new.Yardstick)
	switch {
	case errors.Is(err, yardstick.ErrMissing):
		res.Notes = append(res.Notes, missing(y.Old == nil, y.New == nil))
	case err != nil:
		res.Notes = append(res.Notes, say("yardstick-unread", map[string]any{"Err": err}))
	case !e.HasInterval():
		res.Notes = append(res.Notes, say("yardstick-few-trials", map[string]any{"Old": e.Old, "New": e.New}))
	default:
		var speed Estimate
		n.speed, speed = fromTwoSample(e)
		n.on, y.Speed, y.Normalised = true, &speed, true
		n.moved = judge(n.speed, units.Higher, noise) != Unchanged
		y.Moved = n.moved
	}
	return n
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
	s, err := yardstick.Summary(y)
	if err != nil {
		return nil
	}
	out := &Side{Work: y.Work, Trials: s.N, Median: Num(s.Center), Lo: Num(s.Lo), Hi: Num(s.Hi)}
	for _, r := range y.Readings {
		if len(r.Trials) == 0 {
			continue
		}
		m, err := yardstick.Summary(&results.Yardstick{Readings: []*results.Reading{r}})
		if err == nil {
			out.Readings = append(out.Readings, Reading{Phase: r.Phase, Trials: len(r.Trials), Median: Num(m.Center)})
		}
	}
	return out
}

// hellos estimates each hello variant's QPS ratio and checks it against the yardstick,
// its interval widened by tau, the between-run spread of QPS (spread.go): a hello
// variant is one variant of one run, and moves between runs as much as any other.
func hellos(p pairing, n norm, noise, tau float64) []Hello {
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
		r, j := fromTwoSample(e)
		h := Hello{Variant: k, Ratio: j, Moved: judge(r, units.Higher, noise) != Unchanged, r: r}
		h.Agrees = n.on && judge(widen(quotient(r, n.speed), tau), units.Higher, noise) == Unchanged
		out = append(out, h)
	}
	return out
}

// contradicted reports whether at least two hello variants, and more than half of them,
// disagree with the yardstick. One hello variant off is a variant (Go's hello alone has
// moved between two runs of one commit by far more than the spread of all variants),
// also when it is the only one; most of them off means the fixed work's reading is in
// doubt (a trial disturbed by a build has made unchanged figures "slower"). README.md,
// "The yardstick" ("Why, measured"), has the figures.
func contradicted(hs []Hello, n norm) bool {
	off := 0
	for _, h := range hs {
		if !h.Agrees {
			off++
		}
	}
	return n.on && off >= 2 && 2*off > len(hs)
}

// helloNote says when the hello variants disagree with the yardstick, or, without one,
// when they moved: the one hint a run without a yardstick gives of a changed machine.
func helloNote(hs []Hello, n norm) string {
	var parts []string
	for _, h := range hs {
		if (n.on && !h.Agrees) || (!n.on && h.Moved) {
			parts = append(parts, fmt.Sprintf("%s %s", short(h.Variant), times(h.r)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	data := map[string]any{"Hellos": strings.Join(parts, ", "), "Speed": times(n.speed)}
	switch {
	case n.contradicted:
		return say("hellos-contradict", data)
	case n.on:
		return say("hellos-disagree", data)
	}
	return say("hellos-moved", data)
}
