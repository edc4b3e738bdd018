package profile

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Folded is a profile summed by component.
type Folded struct {
	Lang    Lang
	Unit    string
	Total   int64
	Weights map[Component]int64 // every component of Lang, zero when absent
	// Unknown sums, by leaf frame, the samples whose leaf no row of the table matches
	// (and that no Subtree frame claimed): where a missing row would change the answer.
	Unknown map[string]int64
}

// Fold attributes every stack of p to a component of lang by the table's rule.
func Fold(p *Profile, lang Lang) (*Folded, error) {
	c, err := NewClassifier(lang)
	if err != nil {
		return nil, err
	}
	comps, _ := Components(lang)
	f := &Folded{Lang: lang, Unit: p.Unit, Weights: map[Component]int64{}, Unknown: map[string]int64{}}
	for _, cp := range comps {
		f.Weights[cp] = 0
	}
	for _, s := range p.Stacks {
		comp, claimed := c.attribute(s.Frames)
		f.Weights[comp] += s.Weight
		f.Total += s.Weight
		if n := len(s.Frames); n > 0 && !claimed && !c.Known(s.Frames[n-1]) {
			f.Unknown[s.Frames[n-1]] += s.Weight
		}
	}
	return f, nil
}

// Share is the fraction of the total that went to c (0 for an empty profile).
func (f *Folded) Share(c Component) float64 {
	if f.Total == 0 {
		return 0
	}
	return float64(f.Weights[c]) / float64(f.Total)
}

// Per divides each component's weight by n, typically the requests served while the
// profile ran: with a CPU profile in nanoseconds, Per(requests) is CPU ns per request.
func (f *Folded) Per(n int64) (map[Component]float64, error) {
	if n <= 0 {
		return nil, fmt.Errorf("dividing a profile by %d requests: want at least one", n)
	}
	out := make(map[Component]float64, len(f.Weights))
	for c, w := range f.Weights {
		out[c] = float64(w) / float64(n)
	}
	return out, nil
}

// Check returns an error when more than maxOther (a fraction, 0.05 for 5%) of the
// total fell into Other, naming the heaviest unknown leaf frames: the rows the table
// misses. An empty profile is an error too: there is nothing to fold.
func (f *Folded) Check(maxOther float64) error {
	if f.Total == 0 {
		return fmt.Errorf("%s profile is empty: no samples to fold", f.Lang)
	}
	share := f.Share(Other)
	if share <= maxOther {
		return nil
	}
	return fmt.Errorf("%.1f%% of the %s profile (%d %s) fell into %q, above %.1f%%; heaviest unknown leaf frames: %s",
		100*share, f.Lang, f.Total, f.Unit, Other, 100*maxOther, f.topUnknown(5))
}

// topUnknown lists the n heaviest unknown leaf frames with their share.
func (f *Folded) topUnknown(n int) string {
	type kv struct {
		frame string
		w     int64
	}
	var all []kv
	for k, w := range f.Unknown {
		all = append(all, kv{k, w})
	}
	slices.SortFunc(all, func(a, b kv) int {
		return cmp.Or(cmp.Compare(b.w, a.w), cmp.Compare(a.frame, b.frame))
	})
	if len(all) == 0 {
		return "none"
	}
	var parts []string
	for _, e := range all[:min(n, len(all))] {
		parts = append(parts, fmt.Sprintf("%s (%.1f%%)", e.frame, 100*float64(e.w)/float64(f.Total)))
	}
	return strings.Join(parts, ", ")
}
