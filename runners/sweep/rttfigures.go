package sweep

import (
	"dbbench/runners/results"
	"dbbench/runners/saturation"
	"dbbench/runners/stats"
)

// The figures of an rtt sweep's page, each in the unit its tables print.
const (
	figQPS    = "qps"       // req/s
	figP50    = "p50 ms"    // ms
	figP99    = "p99 ms"    // ms
	figGenCPU = "gen µs/op" // the load generator's and delay proxy's CPU, µs per request
)

// rttPicks read each figure from a slice, scaled to its unit.
var rttPicks = map[string]func(*results.Repetition) float64{
	figQPS:    func(r *results.Repetition) float64 { return r.QPS },
	figP50:    func(r *results.Repetition) float64 { return 1e3 * r.P50 },
	figP99:    func(r *results.Repetition) float64 { return 1e3 * r.P99 },
	figGenCPU: func(r *results.Repetition) float64 { return 1e6 * r.GenCPU },
}

// RTTFigures is one variant at one point of an rtt sweep, computed when the point is
// read (LoadRTT), so that the page only formats: the medians over its slices and
// what package saturation decides of its latency.
type RTTFigures struct {
	Invalid bool               `json:"invalid,omitempty"`
	Medians map[string]float64 `json:"medians"` // by figure (figQPS …); absent: not measured
	// Verdict is package saturation's on the variant's latency; Past says it is
	// queueing or the generator fell behind, not the service time.
	Verdict saturation.Verdict `json:"verdict"`
	Past    bool               `json:"past"`
}

// rttFiguresOf computes every variant's figures in r, by key.
func rttFiguresOf(r *results.Run) map[string]*RTTFigures {
	out := map[string]*RTTFigures{}
	for _, v := range r.Variants {
		if _, ok := out[v.Key]; ok {
			continue // the first variant of a key is the one the page reads
		}
		f := &RTTFigures{Invalid: !v.Valid, Medians: map[string]float64{}}
		f.Verdict = saturation.JudgeAll(v.SaturationSummaries())
		f.Past = f.Verdict.Marked()
		for name, pick := range rttPicks {
			var xs []float64
			for _, rep := range v.Reps {
				xs = append(xs, pick(rep))
			}
			if s, err := stats.Summarize(xs, "x/op"); err == nil {
				f.Medians[name] = s.Center
			}
		}
		out[v.Key] = f
	}
	return out
}
