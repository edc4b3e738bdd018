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
		// "\x00" cannot occur in a frame name read from either format.
		k := strings.Join(s.Frames, "\x00")
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

// Scale multiplies every weight by factor and renames the unit: an Excimer profile
// taken with a 1 ms period becomes nanoseconds of CPU with Scale(1e6, "nanoseconds").
func (p *Profile) Scale(factor int64, unit string) {
	for i := range p.Stacks {
		p.Stacks[i].Weight *= factor
	}
	p.Unit = unit
}
