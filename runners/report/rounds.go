package report

import (
	"fmt"
	"slices"
	"time"

	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// round is one pass over every variant (repetition Rep of each) and how fast the
// machine ran during it: each valid variant's QPS in that round divided by its median
// over all rounds. Pace is the median of those ratios, Lo and Hi their extremes.
type round struct {
	Rep          int
	Started      time.Time
	Pace, Lo, Hi float64
	Variants     int
}

// rounds finds machine-wide drift, which per-variant intervals cannot tell apart from
// the variant's own noise: a slow minute shows up as one round below 1.00 everywhere.
func rounds(r *results.Run) []round {
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
	var out []round
	for rep, xs := range ratios {
		pace, err := stats.Summarize(xs, "ratio")
		if err != nil {
			continue
		}
		out = append(out, round{Rep: rep, Started: started[rep], Pace: pace.Center,
			Lo: slices.Min(xs), Hi: slices.Max(xs), Variants: len(xs)})
	}
	slices.SortFunc(out, func(a, b round) int { return a.Rep - b.Rep })
	return out
}

// roundsSection is the appendix's drift view for runs measured in rounds (before
// pairs): a sentence and a table, nil when there is one round only.
func roundsSection(rs []round) ([]string, *grid) {
	sentence, head, rows := roundsText(rs)
	if rows == nil {
		return []string{say("rounds-intro", nil) + " " + sentence}, nil
	}
	g := grid{ID: "t-rounds", Head: head}
	for _, r := range rows {
		var cells []cell
		for _, c := range r {
			cells = append(cells, textCell(c))
		}
		g.Rows = append(g.Rows, cells)
	}
	return []string{say("rounds-intro", nil) + " " + sentence}, &g
}

// paceTolerance is how far off the usual pace a round may run before roundsText names
// it.
const paceTolerance = 0.05

// roundsText is the markdown section body: a sentence on rounds off the usual pace
// by more than paceTolerance, then the table.
func roundsText(rs []round) (sentence string, head []string, rows [][]string) {
	if len(rs) < 2 {
		return "One round only: nothing to compare.", nil, nil
	}
	var off []string
	for _, r := range rs {
		if r.Pace < 1-paceTolerance || r.Pace > 1+paceTolerance {
			off = append(off, fmt.Sprintf("round %d ran at %.2f", r.Rep, r.Pace))
		}
	}
	sentence = say("rounds-steady", paceTolerance)
	if len(off) > 0 {
		sentence = say("rounds-off", map[string]any{"Tolerance": paceTolerance, "Off": off})
	}
	head = []string{"round", "started (UTC)", "pace: median over variants of QPS / the variant's median", "lowest", "highest", "variants"}
	for _, r := range rs {
		rows = append(rows, []string{fmt.Sprint(r.Rep), r.Started.UTC().Format("15:04:05"),
			fmt.Sprintf("%.2f", r.Pace), fmt.Sprintf("%.2f", r.Lo), fmt.Sprintf("%.2f", r.Hi), fmt.Sprint(r.Variants)})
	}
	return sentence, head, rows
}
