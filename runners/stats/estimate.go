package stats

import (
	"encoding/json"
	"fmt"
	"math"

	"dbbench/runners/units"
)

// Estimate is a figure estimated from samples, with its 95% confidence interval: a
// ratio (B ÷ A from pairs, new ÷ old from two samples) or, where Shift is set, a
// difference B − A. It is the one estimate every package passes on: the findings a run
// stores, compare's rows and a revision's cost.
type Estimate struct {
	Method string // HodgesLehmann, HodgesLehmannTwoSample or BootstrapMedian
	N      int    // pairs, or the values of both samples together
	Value  float64
	Shift  bool // Value is a difference, not a ratio
	// [Lo, Hi] is the interval of Value. Without one (too few values) it is the whole
	// line, Lo = −Inf and Hi = +Inf: HasInterval() is false, Warnings says why, and JSON
	// writes both as null. That is the one way to say "no interval".
	Lo, Hi float64
	// Confidence is the interval's coverage: exact for the Hodges–Lehmann methods (the
	// discrete level actually reached, >= 0.95), nominal for BootstrapMedian, 0 without
	// an interval.
	Confidence float64
	Warnings   []string
}

// The zero Estimate is not "no interval": it is 0 with the interval [0, 0]. An estimate
// known without an interval is made with NoInterval.

// HasInterval reports whether there were enough values for a finite interval.
func (e Estimate) HasInterval() bool { return !math.IsInf(e.Lo, 0) && !math.IsInf(e.Hi, 0) }

// withoutInterval is e with no interval, and why.
func (e Estimate) withoutInterval(why string) Estimate {
	e.Lo, e.Hi, e.Confidence = math.Inf(-1), math.Inf(1), 0
	e.Warnings = append(e.Warnings, why)
	return e
}

// NoInterval is a ratio or difference known without an interval: a figure derived from
// estimates whose intervals do not combine.
func NoInterval(value float64) Estimate {
	return Estimate{Value: value, Lo: math.Inf(-1), Hi: math.Inf(1)}
}

func tooFewPairs(n int) string {
	return fmt.Sprintf("need >= %d pairs for a 95%% interval, have %d", MinPairs, n)
}

// ExcludesOne reports whether a ratio's interval lies wholly above or below 1: the two
// sides differ, at the interval's confidence.
func (e Estimate) ExcludesOne() bool { return e.HasInterval() && (e.Lo > 1 || e.Hi < 1) }

// HalfWidth is a ratio's interval half-width as a fraction, sqrt(Hi/Lo) - 1: the
// interval is Value·[1/(1+h), 1+h] when it is symmetric on the log scale, which the
// Hodges–Lehmann one nearly is. It measures the log-scale width, so swapping A and B
// leaves it unchanged. +Inf without an interval. The stopping rule "narrower than ±2%"
// is HalfWidth() <= 0.02.
func (e Estimate) HalfWidth() float64 {
	if !e.HasInterval() {
		return math.Inf(1)
	}
	return math.Sqrt(e.Hi/e.Lo) - 1
}

// Inverse is the estimate of a ratio's other way round, A ÷ B: the ratio and its
// interval inverted (the counts and the method stay).
func (e Estimate) Inverse() Estimate {
	inv := e
	inv.Value = 1 / e.Value
	inv.Lo, inv.Hi = math.Inf(-1), math.Inf(1)
	if e.HasInterval() {
		inv.Lo, inv.Hi = 1/e.Hi, 1/e.Lo
	}
	return inv
}

// Per divides a difference and its interval by n > 0: a difference of 90 more rows per
// request, per row.
func (e Estimate) Per(n float64) Estimate {
	e.Value, e.Lo, e.Hi = e.Value/n, e.Lo/n, e.Hi/n
	return e
}

// String formats the estimate as "1.0630 [1.0570, 1.0690] (n = 30, 95.1%)".
func (e Estimate) String() string {
	if !e.HasInterval() {
		return fmt.Sprintf("%.4f [no interval] (n = %d)", e.Value, e.N)
	}
	return fmt.Sprintf("%s (n = %d, %.1f%%)", four(e.Value, e.Lo, e.Hi), e.N, 100*e.Confidence)
}

// four is an estimate to four decimals, as String prints it.
func four(x, lo, hi float64) string {
	f := func(v float64) string { return fmt.Sprintf("%.4f", v) }
	return units.Estimate(f(x), f(lo), f(hi))
}

// estimateJSON is an Estimate as JSON writes it: the value under "ratio" or "shift",
// and null bounds without an interval (JSON has no infinity).
type estimateJSON struct {
	Method     string   `json:"method"`
	N          int      `json:"n"`
	Ratio      *float64 `json:"ratio,omitempty"`
	Shift      *float64 `json:"shift,omitempty"`
	Lo         *float64 `json:"lo"`
	Hi         *float64 `json:"hi"`
	Confidence float64  `json:"confidence,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
}

func (e Estimate) MarshalJSON() ([]byte, error) {
	j := estimateJSON{Method: e.Method, N: e.N, Confidence: e.Confidence, Warnings: e.Warnings}
	v := e.Value
	if e.Shift {
		j.Shift = &v
	} else {
		j.Ratio = &v
	}
	j.Lo, j.Hi = bounds(e.Lo, e.Hi)
	return json.Marshal(j)
}

// bounds are an interval's bounds as JSON writes them: both null without an interval
// (either infinite), since JSON has no infinity.
func bounds(lo, hi float64) (*float64, *float64) {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil, nil
	}
	return &lo, &hi
}

// interval reads bounds back: no interval (−Inf, +Inf) unless both are there.
func interval(lo, hi *float64) (float64, float64) {
	if lo == nil || hi == nil {
		return math.Inf(-1), math.Inf(1)
	}
	return *lo, *hi
}

// UnmarshalJSON reads what MarshalJSON writes. Null or missing bounds are no interval.
func (e *Estimate) UnmarshalJSON(b []byte) error {
	var j estimateJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*e = Estimate{Method: j.Method, N: j.N, Confidence: j.Confidence, Warnings: j.Warnings}
	e.Lo, e.Hi = interval(j.Lo, j.Hi)
	switch {
	case j.Shift != nil:
		e.Value, e.Shift = *j.Shift, true
	case j.Ratio != nil:
		e.Value = *j.Ratio
	}
	return nil
}

// summaryJSON is a Summary as JSON writes it.
type summaryJSON struct {
	Unit       string   `json:"unit"`
	N          int      `json:"n"`
	Center     float64  `json:"median"`
	Lo         *float64 `json:"lo"`
	Hi         *float64 `json:"hi"`
	Confidence float64  `json:"confidence,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
}

// MarshalJSON writes a summary with its median and interval, null bounds without one
// (as an Estimate writes them).
func (s Summary) MarshalJSON() ([]byte, error) {
	j := summaryJSON{Unit: s.Unit, N: s.N, Center: s.Center, Confidence: s.Confidence, Warnings: s.Warnings}
	j.Lo, j.Hi = bounds(s.Lo, s.Hi)
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes; null bounds are no interval.
func (s *Summary) UnmarshalJSON(b []byte) error {
	var j summaryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Summary{Unit: j.Unit, N: j.N, Center: j.Center, Confidence: j.Confidence, Warnings: j.Warnings}
	s.Lo, s.Hi = interval(j.Lo, j.Hi)
	return nil
}
