package judge

import (
	"slices"
	"time"

	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// Round is one pass over every variant (repetition Rep of each) and how fast the
// machine ran during it: each valid variant's QPS in that round divided by its median
// over all rounds. Pace is the median of those ratios, Lo and Hi their extremes.
type Round struct {
	Rep      int       `json:"rep"`
	Started  time.Time `json:"started"`
	Pace     float64   `json:"pace"` // the median of the variants' req/s over their own medians
	Lo       float64   `json:"lo"`   // the slowest variant's, and the fastest's
	Hi       float64   `json:"hi"`
	Variants int       `json:"variants"`
}

// rounds finds machine-wide drift, which per-variant intervals cannot tell apart from
// the variant's own noise: a slow minute shows up as one round below 1.00 everywhere.
func rounds(r *results.Run) []Round {
	ratios := map[int][]float64{}
	started := map[int]time.Time{}
	for _, v := range r.Variants {
		if !v.Valid || len(v.Reps) < 2 {
			continue
		}
		var qps []float64
		for _, rep := range v.Reps {
			qps = append(qps, rep.QPS)
		}
		// The same median the variant table shows for the variant.
		m, err := stats.Summarize(qps, units.QPS)
		if err != nil || m.Center <= 0 {
			continue
		}
		for _, rep := range v.Reps {
			ratios[rep.Rep] = append(ratios[rep.Rep], rep.QPS/m.Center)
			if s, ok := started[rep.Rep]; !ok || rep.Started.Before(s) {
				started[rep.Rep] = rep.Started
			}
		}
	}
	var out []Round
	for rep, xs := range ratios {
		pace, err := stats.Summarize(xs, "ratio")
		if err != nil {
			continue
		}
		out = append(out, Round{Rep: rep, Started: started[rep], Pace: pace.Center,
			Lo: slices.Min(xs), Hi: slices.Max(xs), Variants: len(xs)})
	}
	slices.SortFunc(out, func(a, b Round) int { return a.Rep - b.Rep })
	return out
}

// Reading is the yardstick's median at one of its readings.
type Reading struct {
	Phase  string  `json:"phase"`
	Median float64 `json:"median_seconds"` // seconds per op
}

// readings are the medians of y's trials at each reading it has trials for.
func readings(y *results.Yardstick) []Reading {
	if y == nil {
		return nil
	}
	var out []Reading
	for _, r := range y.Readings {
		if s, err := stats.Summarize(r.Trials, "sec/op"); err == nil {
			out = append(out, Reading{Phase: r.Phase, Median: s.Center})
		}
	}
	return out
}
