package results

import (
	"math"

	"dbbench/runners/stats"
)

// Finding is a comparison judged: Other ÷ Base in req/s and in app CPU per request,
// each with its interval and its verdict at Margin. runners/judge/findings computes it, the
// run stores it beside the pairs it came from, and the report and the terminal read
// it, so that no output judges the same pairs another way. Runs before schema v4 have
// none: findings.Of computes it on read.
type Finding struct {
	Margin float64   `json:"margin"`            // the equivalence margin, a fraction: 0.02 for ±2%
	QPS    *Estimate `json:"qps,omitempty"`     // nil: too few pairs for an estimate
	AppCPU *Estimate `json:"app_cpu,omitempty"` // nil: app CPU not measured on both sides
}

// Estimate is one figure's ratio, Other ÷ Base, from a comparison's pairs: its 95%
// interval (Lo = Hi = 0: too few pairs for one), how it was estimated and what the
// interval decides at the finding's margin.
type Estimate struct {
	Method     string         `json:"method"` // stats.HodgesLehmann for pairs
	Pairs      int            `json:"pairs"`
	Ratio      float64        `json:"ratio"`
	Lo         float64        `json:"lo,omitempty"`
	Hi         float64        `json:"hi,omitempty"`
	Confidence float64        `json:"confidence,omitempty"` // the interval's coverage reached
	Verdict    stats.Decision `json:"verdict"`
	Warnings   []string       `json:"warnings,omitempty"` // stats': why there is no interval
}

// RatioEstimate is the estimate as package stats gives it: no interval is Lo = 0,
// Hi = +Inf there (JSON has no infinity, so results stores both as 0).
func (e *Estimate) RatioEstimate() stats.RatioEstimate {
	r := stats.RatioEstimate{Method: e.Method, N: e.Pairs, Ratio: e.Ratio, Lo: e.Lo, Hi: e.Hi, Confidence: e.Confidence, Warnings: e.Warnings}
	if e.Lo == 0 && e.Hi == 0 {
		r.Hi = math.Inf(1)
	}
	return r
}
