package profile

import (
	"slices"
	"strings"
)

// NoFrame names the single frame of a sample that came with no frame at all (a pprof
// sample without locations, an Excimer line with an empty stack), so its weight still
// counts in the total and survives a collapsed round trip.
const NoFrame = "[no frame]"

// Stack is one call stack, root first and leaf last, with its weight in the
// profile's unit.
type Stack struct {
	Frames []string
	Weight int64
}

// Profile is a set of weighted stacks that share one unit: "nanoseconds" of CPU,
// "bytes" or "objects" allocated, or "samples" (an Excimer count of timer periods).
type Profile struct {
	Unit   string
	Stacks []Stack
}

// Total is the sum of the weights.
func (p *Profile) Total() int64 {
	var t int64
	for _, s := range p.Stacks {
		t += s.Weight
	}
	return t
}

// Merge adds up identical stacks, drops stacks of weight zero, and sorts the rest by
// their frames, so two profiles with the same content compare and print the same.
func (p *Profile) Merge() {
	sum := make(map[string]int64, len(p.Stacks))
	frames := make(map[string][]string, len(p.Stacks))
	for _, s := range p.Stacks {
		k := stackKey(s.Frames)
		sum[k] += s.Weight
		if _, ok := frames[k]; !ok {
			frames[k] = s.Frames
		}
	}
	keys := make([]string, 0, len(sum))
	for k, w := range sum {
		if w != 0 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	out := make([]Stack, 0, len(keys))
	for _, k := range keys {
		out = append(out, Stack{Frames: frames[k], Weight: sum[k]})
	}
	p.Stacks = out
}

// Gained is what each stack of p weighs beyond its weight in prev, an earlier reading of
// the same counts (nil: none), leaving out the stacks that gained nothing: for a file
// whose counts only grow, what was added since. p and prev must be merged.
func (p *Profile) Gained(prev *Profile) *Profile {
	before := map[string]int64{}
	if prev != nil {
		for _, s := range prev.Stacks {
			before[stackKey(s.Frames)] = s.Weight
		}
	}
	out := &Profile{Unit: p.Unit}
	for _, s := range p.Stacks {
		if d := s.Weight - before[stackKey(s.Frames)]; d > 0 {
			out.Stacks = append(out.Stacks, Stack{Frames: s.Frames, Weight: d})
		}
	}
	return out
}

// stackKey is one string per distinct stack: "\x00" cannot occur in a frame name read
// from either format.
func stackKey(frames []string) string { return strings.Join(frames, "\x00") }

// Scale multiplies every weight by factor and renames the unit: an Excimer profile
// taken with a 1 ms period becomes nanoseconds of CPU with Scale(1e6, "nanoseconds").
func (p *Profile) Scale(factor int64, unit string) {
	for i := range p.Stacks {
		p.Stacks[i].Weight *= factor
	}
	p.Unit = unit
}
