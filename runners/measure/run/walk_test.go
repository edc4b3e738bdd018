package run

import (
	"fmt"
	"testing"

	"dbbench/runners/results"
)

// graph is a hub with three comparands, and a second comparison between two of them:
// raw–orm, raw–gorm, raw–builder, orm–ormprep.
func graph() ([]*results.Variant, []*edge) {
	var vs []*results.Variant
	for _, name := range []string{"raw", "orm", "gorm", "builder", "ormprep"} {
		vs = append(vs, &results.Variant{Key: name})
	}
	mk := func(b, o int) *edge {
		return &edge{comp: &results.Comparison{Base: vs[b].Key, Other: vs[o].Key}, base: vs[b], other: vs[o]}
	}
	return vs, []*edge{mk(0, 1), mk(0, 2), mk(0, 3), mk(4, 1)}
}

// walk measures n slices, numbering each variant's repetitions, and returns the order.
func walk(t *testing.T, w *walker, n int) []string {
	t.Helper()
	reps := map[*results.Variant]int{}
	var order []string
	for range n {
		v := w.next()
		if v == nil {
			break
		}
		reps[v]++
		w.measured(v, reps[v])
		order = append(order, fmt.Sprintf("%s#%d", v.Key, reps[v]))
	}
	return order
}

// Every pair is two slices measured one after the other, of the two sides of its
// comparison; a walk uses every slice but jumps' twice, and no two pairs of one
// comparison share a slice.
func TestWalkPairsAdjacentSlices(t *testing.T) {
	for _, design := range []string{Walk, Alternate} {
		t.Run(design, func(t *testing.T) {
			_, edges := graph()
			w := newWalker(design, 1, edges)
			order := walk(t, w, 200)
			pos := map[string]int{}
			for i, s := range order {
				pos[s] = i
			}
			total, sandwiches := 0, 0
			for _, e := range edges {
				used := map[string]bool{}
				for _, p := range e.comp.Pairs {
					var slices []string
					for _, r := range p.Base {
						slices = append(slices, fmt.Sprintf("%s#%d", e.base.Key, r))
					}
					for _, r := range p.Other {
						slices = append(slices, fmt.Sprintf("%s#%d", e.other.Key, r))
					}
					lo, hi := len(order), -1
					for _, s := range slices {
						lo, hi = min(lo, pos[s]), max(hi, pos[s])
						if used[s] {
							t.Fatalf("%s–%s: slice %s in two pairs", e.base.Key, e.other.Key, s)
						}
						used[s] = true
					}
					if hi-lo+1 != len(slices) || len(p.Base) == 0 || len(p.Other) == 0 || len(slices) > 3 {
						t.Fatalf("%s–%s pair %v: not one run of adjacent slices of both sides", e.base.Key, e.other.Key, slices)
					}
					if len(slices) == 3 {
						sandwiches++
					}
				}
				total += len(e.comp.Pairs)
				if n := len(e.comp.Pairs); n < 10 {
					t.Errorf("%s–%s: %d pairs of 200 slices", e.base.Key, e.other.Key, n)
				}
			}
			// A walk spends about two slices a pair here (dead ends make sandwiches), an
			// alternate design exactly two.
			if total < 90 {
				t.Errorf("%d pairs from 200 slices, want at least 90", total)
			}
			if (design == Walk) != (sandwiches > 20) {
				t.Errorf("%s: %d sandwiches", design, sandwiches)
			}
		})
	}
}

// Done edges are not measured any more, a failed variant's edges end, and the walk
// finishes when every edge is done.
func TestWalkStopsWhereDone(t *testing.T) {
	vs, edges := graph()
	w := newWalker(Walk, 2, edges)
	edges[0].done, edges[1].done = true, true
	w.failed(vs[3]) // builder: raw–builder ends
	walk(t, w, 40)
	for i, e := range edges[:3] {
		if len(e.comp.Pairs) != 0 {
			t.Errorf("edge %d measured %d pairs after it was done", i, len(e.comp.Pairs))
		}
	}
	if len(edges[3].comp.Pairs) < 12 { // one edge alone: sandwiches of three slices
		t.Errorf("the one open edge got %d pairs of 40 slices", len(edges[3].comp.Pairs))
	}
	edges[3].done = true
	if !w.finished() || w.next() != nil {
		t.Error("every edge done, but the walk goes on")
	}
}
