package results

import (
	"encoding/json"
	"fmt"

	"dbbench/runners/stats"
)

// Finding is a comparison judged: Other ÷ Base in req/s and in app CPU per request,
// each with its interval and its verdict at Margin. runners/judge/findings computes it, the
// run stores it beside the pairs it came from, and the report and the terminal read
// it, so that no output judges the same pairs another way. A comparison stored without
// one is judged on read (findings.Of).
type Finding struct {
	Margin float64 `json:"margin"`            // the equivalence margin, a fraction: 0.02 for ±2%
	QPS    *Judged `json:"qps,omitempty"`     // nil: too few pairs for an estimate
	AppCPU *Judged `json:"app_cpu,omitempty"` // nil: app CPU not measured on both sides
}

// Judged is one figure's estimate, Other ÷ Base from a comparison's pairs, and what its
// interval decides at the finding's margin.
type Judged struct {
	stats.Estimate
	Verdict stats.Decision `json:"verdict"`
}

// MarshalJSON writes the estimate's fields and the verdict in one object (the
// estimate's own MarshalJSON would otherwise stand for the whole).
func (j Judged) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(j.Estimate)
	if err != nil {
		return nil, err
	}
	v, err := json.Marshal(j.Verdict)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(b[:len(b)-1], `,"verdict":%s}`, v), nil
}

// UnmarshalJSON reads what MarshalJSON writes, and the form of schema v4: "pairs" for
// n, and bounds left out for no interval.
func (j *Judged) UnmarshalJSON(b []byte) error {
	var rest struct {
		Verdict stats.Decision `json:"verdict"`
		Pairs   *int           `json:"pairs"`
	}
	if err := json.Unmarshal(b, &rest); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &j.Estimate); err != nil {
		return err
	}
	j.Verdict = rest.Verdict
	if rest.Pairs != nil {
		j.N = *rest.Pairs
	}
	return nil
}
