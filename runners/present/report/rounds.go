package report

import (
	"fmt"

	"dbbench/runners/judge"
)

// roundsSection is the appendix's drift view for runs measured in rounds (before
// pairs): a sentence and a table, nil when there is one round only.
func roundsSection(rs []judge.Round) ([]string, *grid) {
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
func roundsText(rs []judge.Round) (sentence string, head []string, rows [][]string) {
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
