package run

import (
	"math/rand/v2"

	"dbbench/runners/results"
)

// Designs of the paired measurement (README.md in this directory says which is the
// default and why). Both measure short slices of one variant at a time, every target of
// a language running, so that the two sides of a comparison are measured seconds apart
// and the machine's drift hits both alike.
const (
	// Interleave measures every variant still in an open comparison in one block, in
	// turns of a tenth of a second or so (turns.go, block.go): every block gives every
	// open comparison a pair, and a pair's two sides share the machine's every change of
	// speed longer than a turn.
	Interleave = "interleave"
	// Walk moves along the comparisons: each next slice is a variant that shares a
	// comparison with the one just measured, so every slice (but a jump's) makes a pair
	// with the slice before it, and each slice serves two comparisons.
	Walk = "walk"
	// Alternate measures each pair on two fresh slices, A then B or B then A at random
	// (the first paired design tried: README.md, "Choosing the design"): no slice is shared.
	Alternate = "alternate"
)

// edge is one comparison under measurement and the state the walker keeps of it.
type edge struct {
	comp        *results.Comparison
	base, other *results.Variant
	done        bool // its interval is narrow enough, it has MaxPairs, or a side failed
	// width is the wider half-width of its QPS and app CPU intervals when judge last
	// read them (widthOK: both had one), for the progress line's estimate.
	width   float64
	widthOK bool
}

// walker chooses which variant to measure next, and turns adjacent slices into pairs.
type walker struct {
	design string
	rng    *rand.Rand
	edges  []*edge
	at     *results.Variant // the variant of the last slice, nil before the first
	atRep  int              // its repetition number
	via    *edge            // the edge the last move went along, nil after a jump
	// last is the pair the last slice is in; sandwiched says that pair already took the
	// slice before it and the one after it (a pair of one comparison never shares a
	// slice with another pair of that comparison).
	last       *results.Pair
	sandwiched bool
	// alternate: the edge of the pair under way, the side measured first, and whether
	// that first slice is measured yet.
	half     *edge
	halfFrom *results.Variant
	halfDone bool
}

func newWalker(design string, seed uint64, edges []*edge) *walker {
	return &walker{design: design, rng: rand.New(rand.NewPCG(seed, 0x77616c6b)), edges: edges} // "walk"
}

// open are the edges still measured.
func (w *walker) open() []*edge { return openEdges(w.edges) }

func openEdges(es []*edge) []*edge {
	var out []*edge
	for _, e := range es {
		if !e.done {
			out = append(out, e)
		}
	}
	return out
}

// finished says whether no edge needs another pair (and no pair is half measured).
func (w *walker) finished() bool { return w.half == nil && len(w.open()) == 0 }

// next is the variant to measure now.
func (w *walker) next() *results.Variant {
	if w.design == Alternate {
		return w.nextAlternate()
	}
	if e := w.leastObserved(w.touching(w.at)); e != nil {
		w.via = e
		return e.end(w.at)
	}
	// Nothing open here: jump to an end of the least observed open edge. The slice
	// there pairs with nothing before it, and with its next one.
	w.via = nil
	e := w.leastObserved(w.open())
	if e == nil {
		return nil
	}
	if w.rng.IntN(2) == 0 {
		return e.base
	}
	return e.other
}

func (w *walker) nextAlternate() *results.Variant {
	if w.half != nil && w.halfDone {
		return w.half.end(w.halfFrom)
	}
	e := w.leastObserved(w.open())
	if e == nil {
		return nil
	}
	w.half, w.halfFrom, w.halfDone = e, e.base, false
	if w.rng.IntN(2) == 0 {
		w.halfFrom = e.other
	}
	return w.halfFrom
}

// measured records that v was measured as repetition rep (the variant next returned).
func (w *walker) measured(v *results.Variant, rep int) {
	switch {
	case w.design == Alternate && w.half != nil && !w.halfDone:
		w.halfDone = true // the first slice of a pair
	case w.design == Alternate && w.half != nil:
		w.half.add(w.at, w.atRep, v, rep)
		w.half = nil
	case w.design != Alternate && w.via != nil && w.at != nil:
		w.walked(v, rep)
	}
	w.at, w.atRep = v, rep
}

// walked pairs the slice just measured along w.via with the one before it. Going back
// along the edge the last pair was made on (the slice before was a dead end) turns that
// pair into a sandwich: one side measured before and after the other, which cancels a
// linear drift. Along that edge once more, the slice starts afresh.
func (w *walker) walked(v *results.Variant, rep int) {
	back := w.last != nil && w.lastEdge() == w.via
	switch {
	case back && w.sandwiched:
		w.last, w.sandwiched = nil, false
	case back:
		if v == w.via.base {
			w.last.Base = append(w.last.Base, rep)
		} else {
			w.last.Other = append(w.last.Other, rep)
		}
		w.sandwiched = true
	default:
		w.last = w.via.add(w.at, w.atRep, v, rep)
		w.sandwiched = false
	}
}

// lastEdge is the edge whose latest pair is w.last.
func (w *walker) lastEdge() *edge {
	for _, e := range w.edges {
		if n := len(e.comp.Pairs); n > 0 && &e.comp.Pairs[n-1] == w.last {
			return e
		}
	}
	return nil
}

// failed drops every edge of v: its target died or its figures are invalid. An
// alternate pair half measured with v is abandoned.
func (w *walker) failed(v *results.Variant) {
	for _, e := range w.edges {
		if e.base == v || e.other == v {
			e.done = true
		}
	}
	if w.half != nil && (w.half.base == v || w.half.other == v) {
		w.half = nil
	}
	if w.at == v {
		w.at, w.via = nil, nil
	}
}

// touching are the open edges of v, but the one just walked unless it is the only one
// (then going back makes a sandwich: see walked).
func (w *walker) touching(v *results.Variant) []*edge {
	if v == nil {
		return nil
	}
	var out []*edge
	for _, e := range w.open() {
		if e.base == v || e.other == v {
			out = append(out, e)
		}
	}
	if len(out) > 1 && w.via != nil {
		for i, e := range out {
			if e == w.via {
				out = append(out[:i], out[i+1:]...)
				break
			}
		}
	}
	return out
}

// leastObserved is the edge with the fewest pairs, ties broken at random.
func (w *walker) leastObserved(es []*edge) *edge {
	var best *edge
	ties := 0
	for _, e := range es {
		switch {
		case best == nil || len(e.comp.Pairs) < len(best.comp.Pairs):
			best, ties = e, 1
		case len(e.comp.Pairs) == len(best.comp.Pairs):
			ties++
			if w.rng.IntN(ties) == 0 {
				best = e
			}
		}
	}
	return best
}

// end is the other end of e from v.
func (e *edge) end(v *results.Variant) *results.Variant {
	if e.base == v {
		return e.other
	}
	return e.base
}

// add records a pair, repetition aRep of a next to bRep of b (one of them e's base), and
// returns it.
func (e *edge) add(a *results.Variant, aRep int, b *results.Variant, bRep int) *results.Pair {
	if a == e.other {
		aRep, bRep = bRep, aRep
	}
	e.comp.Pairs = append(e.comp.Pairs, results.Pair{Base: []int{aRep}, Other: []int{bRep}})
	return &e.comp.Pairs[len(e.comp.Pairs)-1]
}
