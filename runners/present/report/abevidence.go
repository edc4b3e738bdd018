package report

import (
	"fmt"
	"slices"
	"strings"

	"dbbench/runners/judge/revcost"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// abSection is the answer's evidence: a row per variant, a column per figure, each
// cell B ÷ A as a change with its interval and verdict; then the commands and pairs.
func abSection(a *revcost.Answer, ans answer) section {
	s := section{ID: ans.ID, Title: ans.Title}
	if len(a.Variants) == 0 {
		s.Empty = ans.Sentence
		return s
	}
	t := a.AB.Margin
	var as []*results.Variant
	for _, v := range a.Variants {
		as = append(as, v.A)
	}
	ops := hasOps(as)
	head := keyHeadOf(nil)
	if ops {
		head = append(head, "op")
	}
	g := grid{ID: "t-ab", Caption: "B against A, per variant", Head: slices.Clone(head), Sortable: true, Keys: len(head)}
	for _, m := range revcost.Metrics {
		g.Head = append(g.Head, m.Name)
	}
	g.Head = append(g.Head, "commands per request", "pairs")
	for _, v := range a.Variants {
		row := keyCells(v.A, ops, false)[:len(head)] // the rev column left out: a row is both revisions
		for _, m := range revcost.Metrics {
			row = append(row, abCell(v, m, t))
		}
		commands := "not captured"
		if v.Commands != nil {
			commands = v.Commands.String()
		}
		row = append(row, textCell(commands), abPairs(v))
		g.Rows = append(g.Rows, row)
	}
	g.Notes = []string{abCellNote(t)}
	s.Grids = []grid{g}
	if len(a.Unpaired) > 0 {
		s.Paragraphs = append(s.Paragraphs, "Not compared, having no measured pair at the other revision: "+strings.Join(a.Unpaired, "; ")+".")
	}
	return s
}

// abCell is one figure of one variant: "+4.9% [+1.8%, +8.1%]" over its verdict.
func abCell(v revcost.Pair, m revcost.Metric, t float64) cell {
	i := slices.IndexFunc(v.Figures, func(e revcost.Figure) bool { return e.Unit == m.Unit })
	if i < 0 {
		return textCell("not measured")
	}
	e := v.Figures[i]
	word := e.Word(t)
	if e.Beyond {
		word += fmt.Sprintf(", past ±%g%%", 100*t)
	}
	return cell{Lines: []string{revcost.Change(e.Estimate), word}, Sort: e.Value}
}

func abPairs(v revcost.Pair) cell {
	n := 0
	if len(v.Figures) > 0 {
		n = v.Figures[0].N
	}
	text := units.Count(n, "pair")
	if !v.Reached {
		text += " †"
	}
	return numCell(float64(n), text)
}

func abCellNote(t float64) string { return say("ab-cell-note", map[string]any{"Threshold": t}) }
