package profile

import "testing"

func TestMergeAndScale(t *testing.T) {
	p := &Profile{Unit: "samples", Stacks: []Stack{
		{Frames: []string{"b"}, Weight: 2},
		{Frames: []string{"a", "x"}, Weight: 0},
		{Frames: []string{"a"}, Weight: 1},
		{Frames: []string{"b"}, Weight: 3},
	}}
	p.Merge()
	if want := []Stack{{Frames: []string{"a"}, Weight: 1}, {Frames: []string{"b"}, Weight: 5}}; !sameStacks(p.Stacks, want) {
		t.Errorf("merged %v, want %v", p.Stacks, want)
	}
	// An Excimer profile with a 1 ms period: each sample is 1e6 ns of CPU.
	p.Scale(1_000_000, "nanoseconds")
	if p.Total() != 6_000_000 || p.Unit != "nanoseconds" || p.Stacks[1].Weight != 5_000_000 {
		t.Errorf("scaled: %v %s", p.Stacks, p.Unit)
	}
}
