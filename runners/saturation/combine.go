package saturation

import "fmt"

// severity orders the states when repetitions disagree equally often: a generator
// behind makes the rest moot, and an open loop past capacity says more than a queue.
var severity = map[string]int{OK: 0, Queueing: 1, PastCapacity: 2, GeneratorBehind: 3}

// JudgeAll is a variant's verdict from its repetitions' summaries: each judged, then
// combined. The runner flags a variant with it and the sweep reads it back, so both
// judge alike.
func JudgeAll(ss []Summary) Verdict {
	var vs []Verdict
	for _, s := range ss {
		vs = append(vs, Judge(s))
	}
	return Combine(vs)
}

// Combine is a variant's verdict from those of its repetitions. It is marked when any
// repetition is: the median over repetitions would otherwise hide a point at the edge
// of capacity. Its state is the one most marked repetitions share (the more severe on
// a tie), and its reason is that of the first of them, prefixed with how many
// repetitions had that state. With none marked it is the first repetition's verdict.
func Combine(vs []Verdict) Verdict {
	if len(vs) == 0 {
		return Verdict{State: OK, Reason: "no slice: nothing to judge"}
	}
	count := map[string]int{}
	marked := 0
	for _, v := range vs {
		if v.Marked() {
			count[v.State]++
			marked++
		}
	}
	if marked == 0 {
		return vs[0]
	}
	best := ""
	for state, n := range count {
		if best == "" || n > count[best] || n == count[best] && severity[state] > severity[best] {
			best = state
		}
	}
	for _, v := range vs {
		if v.State == best {
			prefix := fmt.Sprintf("in %d of %d slices", count[best], len(vs))
			if other := marked - count[best]; other > 0 {
				prefix += fmt.Sprintf(" (%d more marked otherwise)", other)
			}
			v.Reason = prefix + ": " + v.Reason
			return v
		}
	}
	panic("unreachable")
}
