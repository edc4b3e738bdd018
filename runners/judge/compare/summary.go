package compare

import (
	"cmp"
	"math"
	"slices"
)

// largest is how many changes the summary lists.
const largest = 10

// summarise counts the verdicts of each kind, picks the largest changes and the gate.
func (r *Result) summarise() {
	sums := map[Kind]*KindSummary{}
	for _, k := range Kinds {
		sums[k] = &KindSummary{Kind: k}
	}
	for _, row := range r.Rows {
		s := sums[row.Kind]
		switch row.Verdict {
		case Improved:
			s.Improved++
		case Regressed:
			s.Regressed++
		case CannotTellVerdict:
			s.CannotTell++
		case Changed:
			s.Changed++
			if row.New > row.Old {
				s.Up++
			} else {
				s.Down++
			}
		default:
			s.Unchanged++
		}
		if row.Explained {
			s.Explained++
		}
		if slices.Contains(row.Labels, WithinSpread) {
			s.WithinSpread++
		}
		if row.Verdict == Regressed && !row.Gate && slices.Contains(row.Labels, HelloNotGated) {
			r.Gate.NotGated++
		}
		if row.Gate {
			if !slices.Contains(r.Gate.Variants, row.Variant) {
				r.Gate.Variants = append(r.Gate.Variants, row.Variant)
			}
			if row.Verdict == Changed {
				r.Gate.CountChanges++
			} else {
				r.Gate.Regressions++
			}
		}
	}
	r.Summary = nil
	for _, k := range Kinds {
		r.Summary = append(r.Summary, *sums[k])
	}
	r.Gate.Fails = r.Gate.Regressions+r.Gate.CountChanges > 0
	r.CannotTell = slices.DeleteFunc(r.CannotTell, func(c CannotTell) bool { return !r.coversAGatedRow(c) })
	r.Gate.CannotTell = len(r.CannotTell) > 0

	r.Largest = nil
	for _, row := range r.Rows {
		if row.Verdict != Unchanged && row.Verdict != CannotTellVerdict {
			r.Largest = append(r.Largest, row)
		}
	}
	slices.SortStableFunc(r.Largest, func(a, b Row) int { return cmp.Compare(size(b), size(a)) })
	if len(r.Largest) > largest {
		r.Largest = r.Largest[:largest]
	}
}

// size is how large a change is, on the log scale so that halving and doubling weigh
// the same; a count that appeared from 0 is the largest.
func size(r Row) float64 {
	return math.Abs(math.Log1p(float64(r.Judged.Mid)))
}
