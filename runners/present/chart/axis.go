package chart

import (
	"math"
	"strconv"
)

// Scale maps data values onto pixels, linearly or on a log scale. A chart sets the
// data's range; the pixels are the chart's to lay out.
type Scale struct {
	Lo, Hi float64 // data
	Log    bool
	Labels []Tick  // drawn instead of computed ticks when set
	p0, p1 float64 // pixels
}

// Tick is a labelled value of an axis.
type Tick struct {
	At    float64
	Label string
}

func (s Scale) pos(v float64) float64 {
	f := func(x float64) float64 { return x }
	if s.Log {
		f = math.Log10
	}
	if s.Hi == s.Lo {
		return (s.p0 + s.p1) / 2
	}
	return s.p0 + (f(v)-f(s.Lo))/(f(s.Hi)-f(s.Lo))*(s.p1-s.p0)
}

// ticks are the labelled values of the scale: fixed ones, powers of 1, 2 and 5 on a
// log Scale, or about n round values on a linear one.
func (s Scale) ticks(n int) []Tick {
	if s.Labels != nil {
		var out []Tick
		for _, t := range s.Labels {
			if t.At >= s.Lo*(1-1e-9) && t.At <= s.Hi*(1+1e-9) {
				out = append(out, t)
			}
		}
		return out
	}
	if s.Log {
		return logTicks(s.Lo, s.Hi)
	}
	var out []Tick
	for _, v := range niceTicks(s.Lo, s.Hi, n) {
		out = append(out, Tick{v, number(v)})
	}
	return out
}

// niceStep is a round step (1, 2, 2.5 or 5 × 10^k) that cuts [lo, hi] into about n.
func niceStep(lo, hi float64, n int) float64 {
	span := hi - lo
	if span <= 0 {
		span = math.Abs(hi)
		if span == 0 {
			span = 1
		}
	}
	raw := span / float64(max(n, 1))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

// niceTicks are the multiples of a round step within [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	step := niceStep(lo, hi, n)
	var out []float64
	for v := math.Ceil(lo/step-1e-9) * step; v <= hi+step*1e-9; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	return out
}

// niceBounds widens [lo, hi] outwards to multiples of its round step.
func niceBounds(lo, hi float64, n int) (float64, float64) {
	step := niceStep(lo, hi, n)
	return math.Floor(lo/step+1e-9) * step, math.Ceil(hi/step-1e-9) * step
}

// logTicks are 1, 2, 5 × 10^k within [lo, hi]; only the powers of ten when there are
// more than three decades. A range that is not positive and finite has none: from
// log10(0) = -Inf the loop below would never end (an empty latency panel did that).
func logTicks(lo, hi float64) []Tick {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 1) {
		return nil
	}
	var out []Tick
	mults := []float64{1, 2, 5}
	if hi/lo > 1e3 {
		mults = []float64{1}
	}
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range mults {
			v := m * math.Pow(10, e)
			if v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
				out = append(out, Tick{v, number(v)})
			}
		}
	}
	return out
}

// logBounds widens [lo, hi] to the 1-2-5 values around them.
func logBounds(lo, hi float64) (float64, float64) {
	down := func(x float64) float64 {
		p := math.Pow(10, math.Floor(math.Log10(x)))
		for _, m := range []float64{5, 2, 1} {
			if m*p <= x*(1+1e-9) {
				return m * p
			}
		}
		return p
	}
	up := func(x float64) float64 {
		p := math.Pow(10, math.Floor(math.Log10(x)))
		for _, m := range []float64{1, 2, 5, 10} {
			if m*p >= x*(1-1e-9) {
				return m * p
			}
		}
		return 10 * p
	}
	return down(lo), up(hi)
}

// number writes an axis value compactly: 12k, 1.5, 0.25, 3M.
func number(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return trim(v/1e6) + "M"
	case a >= 1e4:
		return trim(v/1e3) + "k"
	}
	return trim(v)
}

func trim(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	for len(s) > 1 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	if s == "-0" {
		return "0"
	}
	return s
}
