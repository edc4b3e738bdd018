package sweep

import (
	"slices"
	"strconv"

	"dbbench/runners/judge/poolsize"
	"dbbench/runners/results"
)

// Curve is one family of a pool sweep: its points by pool.
type Curve struct {
	Family string  `json:"family"`
	Lang   string  `json:"lang"`
	Points []Point `json:"points"`
	// Cores is the machine's, which every role of the sweep shared (0 when the run did
	// not say: the model then knows no CPU).
	Cores int `json:"cores"`
	// Advice is the pool the curve gives for the need, and the model's (JudgePool).
	Advice Advice `json:"advice"`
}

// PoolSweep is a pool sweep's run judged: its families' curves, each with its advice
// and every point's predicted capacity, which the page then only formats.
type PoolSweep struct {
	Run    *results.Run  `json:"-"`
	Need   poolsize.Need `json:"need"`
	Curves []Curve       `json:"curves"`
}

// JudgePool groups r's variants into curves, reads each one's advice for need, and
// predicts every point's capacity.
func JudgePool(r *results.Run, need poolsize.Need) *PoolSweep {
	curves := Curves(r)
	for i := range curves {
		cv := &curves[i]
		for j := range cv.Points {
			p := &cv.Points[j]
			p.Predicted, p.Limit, p.HasPrediction = Predicted(*cv, *p, need)
		}
		cv.Advice = Advise(*cv, need)
	}
	return &PoolSweep{Run: r, Need: need, Curves: curves}
}

// Point is one pool size of one family.
type Point struct {
	Pool    int     `json:"pool"`
	Invalid string  `json:"invalid,omitempty"` // why the variant was invalid; "" when valid
	Ceiling float64 `json:"ceiling"`           // median closed-loop QPS
	// Capacity is the capacity search (nil when none ran); AtCapacity the slice of the
	// highest rate that held.
	Capacity   *results.Capacity   `json:"capacity,omitempty"`
	AtCapacity *results.Repetition `json:"-"` // in results.json
	// Hold is what a request of this point holds alone (the round-trip count's
	// requests, runners/judge/poolsize); HasHold is false where the sweep did not measure it.
	Hold    poolsize.Hold `json:"hold"`
	HasHold bool          `json:"has_hold"`
	// Predicted is the model's capacity of the point on this machine, Limit the pool's
	// alone (Predicted); HasPrediction is false without a hold.
	Predicted     float64 `json:"predicted"`
	Limit         float64 `json:"limit"`
	HasPrediction bool    `json:"has_prediction"`
	// closed is the variant with only its closed-loop (ceiling) slices, held with only
	// the open-loop slices of the probes that held: for its CPU (Curve.CPU).
	closed, held *results.Variant
}

// Curves groups a sweep's variants by family (in the run's order), points by pool.
func Curves(r *results.Run) []Curve {
	var out []Curve
	idx := map[string]int{}
	link := r.Link
	cores, _ := strconv.Atoi(r.Environment["cpu-count"])
	for _, v := range r.Variants {
		fam := familyOf(v)
		i, ok := idx[fam]
		if !ok {
			i = len(out)
			idx[fam] = i
			out = append(out, Curve{Family: fam, Lang: v.Lang, Cores: cores})
		}
		out[i].Points = append(out[i].Points, point(v, link))
	}
	for i := range out {
		slices.SortFunc(out[i].Points, func(a, b Point) int { return a.Pool - b.Pool })
	}
	return out
}

func point(v *results.Variant, link *results.Link) Point {
	p := Point{Pool: v.Pool, Invalid: v.InvalidReason, Capacity: v.Capacity, Ceiling: closedCeiling(v)}
	p.Hold, p.HasHold = poolsize.Of(v, link)
	p.closed = withReps(v, func(r *results.Repetition) bool { return r.Saturation != nil && r.Saturation.Offered == 0 })
	if v.Capacity != nil {
		passed := map[int]bool{}
		for _, pr := range v.Capacity.Probes {
			passed[pr.Rep] = pr.Pass
		}
		p.held = withReps(v, func(r *results.Repetition) bool { return passed[r.Rep] })
	}
	for _, rep := range v.Reps {
		s := rep.Saturation
		if s != nil && s.Offered > 0 && p.Capacity != nil && p.Capacity.Rate > 0 && s.Offered == best(p.Capacity) {
			p.AtCapacity = rep
		}
	}
	return p
}

// withReps is v with only the repetitions keep keeps; nil when none.
func withReps(v *results.Variant, keep func(*results.Repetition) bool) *results.Variant {
	c := *v
	c.Reps = slices.DeleteFunc(slices.Clone(v.Reps), func(r *results.Repetition) bool { return !keep(r) })
	if len(c.Reps) == 0 {
		return nil
	}
	return &c
}

// best is the highest rate a probe passed.
func best(c *results.Capacity) float64 {
	b := 0.0
	for _, pr := range c.Probes {
		if pr.Pass {
			b = max(b, pr.Rate)
		}
	}
	return b
}

// Largest is the curve's largest pool.
func (cv Curve) Largest() Point { return cv.Points[len(cv.Points)-1] }

// Hold is the family's hold: a request holds the same whatever the pool, so each point
// measured it; the point whose mean is the median of theirs stands for all.
func (cv Curve) Hold() (poolsize.Hold, bool) {
	var hs []poolsize.Hold
	for _, p := range cv.Points {
		if p.HasHold && p.Invalid == "" {
			hs = append(hs, p.Hold)
		}
	}
	if len(hs) == 0 {
		return poolsize.Hold{}, false
	}
	slices.SortFunc(hs, func(a, b poolsize.Hold) int {
		switch {
		case a.Seconds < b.Seconds:
			return -1
		case a.Seconds > b.Seconds:
			return 1
		}
		return 0
	})
	return hs[(len(hs)-1)/2], true
}

// Advice is what a pool sweep says of one family for a need.
type Advice struct {
	Need poolsize.Need `json:"need"`
	// Pool is the smallest pool whose measured capacity holds the rate with its whole
	// 95% interval; 0 when none does. Undecided is a smaller pool whose interval holds
	// the rate inside it: it may hold, or not.
	Pool      int               `json:"pool"`
	Undecided int               `json:"undecided,omitempty"`
	Capacity  *results.Capacity `json:"capacity,omitempty"` // Pool's
	// Model is the queueing model's answer from the family's hold at the sweep's
	// distance (runners/judge/poolsize); HasModel is false without a hold.
	Model    poolsize.Advice `json:"model"`
	HasModel bool            `json:"has_model"`
	// Here is the same model on this machine's cores, which every role shared: what it
	// says where the sweep measured; HasHere is false without a hold, the machine's
	// cores or production's.
	Here    poolsize.Advice `json:"here"`
	HasHere bool            `json:"has_here"`
}

// Advise reads the advice off a curve.
func Advise(cv Curve, need poolsize.Need) Advice {
	a := Advice{Need: need}
	for _, p := range cv.Points {
		c := p.Capacity
		if p.Invalid != "" || c == nil {
			continue
		}
		lo := c.Lo
		if c.Lo == 0 && c.Hi == 0 { // too few searches for an interval: the median alone
			lo = c.Rate
		}
		if lo >= need.Rate {
			a.Pool, a.Capacity = p.Pool, c
			break
		}
		if a.Undecided == 0 && c.Hi >= need.Rate {
			a.Undecided = p.Pool
		}
	}
	if h, ok := cv.Hold(); ok {
		h.CPU = cv.CPU()
		a.Model, a.HasModel = poolsize.Size(h, need), true
		if cv.Cores > 0 && need.AppCores > 0 {
			n := need
			n.RTT = secondsToDuration(h.RTT)
			at, hosts := n.Here(cv.Cores)
			a.Here, a.HasHere = poolsize.SizeOn(h, at, hosts), true
		}
	}
	return a
}

// CPU is the family's CPU per request where its capacity is decided: in the open-loop
// probes that held at its largest valid pool, the highest rates the sweep served with
// the target kept. Open loop costs more per request than closed (a target that waits
// between requests wakes for each), and a capacity is an open-loop figure. A sweep
// without such probes falls back to the ceiling slices.
func (cv Curve) CPU() poolsize.CPU {
	for i := len(cv.Points) - 1; i >= 0; i-- {
		p := cv.Points[i]
		if p.Invalid != "" {
			continue
		}
		if p.held != nil {
			return poolsize.CPUOf(p.held)
		}
		if p.closed != nil {
			return poolsize.CPUOf(p.closed)
		}
	}
	return poolsize.CPU{}
}

// Predicted is the model's capacity of one point at the sweep's own distance and
// target on this machine, every role sharing its cores (pred), and the pool's limit
// alone, as if the CPU were endless (poolLimit). The CPU per request is the point's
// own, from its probes that held: it falls as the rate rises (a busy process serves
// several requests per wake-up), so the family's cheapest, at its largest pool,
// would leave the hosts too idle at a small pool's rates.
func Predicted(cv Curve, p Point, need poolsize.Need) (pred, poolLimit float64, ok bool) {
	h, ok := cv.Hold()
	if !ok {
		return 0, 0, false
	}
	h.CPU = cv.CPU()
	if p.held != nil && p.Invalid == "" {
		h.CPU = poolsize.CPUOf(p.held)
	}
	at := need
	at.RTT = secondsToDuration(h.RTT) // this sweep's own distance: no move
	here, hosts := at.Here(cv.Cores)
	pred, _, _ = poolsize.CapacityOf(h, p.Pool, here, hosts)
	poolLimit, _, _ = poolsize.CapacityOf(h, p.Pool, here, poolsize.Hosts{})
	return pred, poolLimit, true
}
