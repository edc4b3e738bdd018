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

// Gained keeps what grew since the earlier reading: a new stack whole, a grown one by
// its growth; one that stayed or shrank (a rewritten file) is left out.
func TestGained(t *testing.T) {
	before := &Profile{Unit: "samples", Stacks: []Stack{
		{Frames: []string{"a"}, Weight: 3}, {Frames: []string{"b"}, Weight: 2}, {Frames: []string{"c"}, Weight: 5},
	}}
	now := &Profile{Unit: "samples", Stacks: []Stack{
		{Frames: []string{"a"}, Weight: 7}, {Frames: []string{"b"}, Weight: 2}, {Frames: []string{"c"}, Weight: 1},
		{Frames: []string{"d", "e"}, Weight: 4},
	}}
	if got, want := now.Gained(before), []Stack{{Frames: []string{"a"}, Weight: 4}, {Frames: []string{"d", "e"}, Weight: 4}}; !sameStacks(got.Stacks, want) || got.Unit != "samples" {
		t.Errorf("gained %v %s, want %v", got.Stacks, got.Unit, want)
	}
	if got := now.Gained(nil); !sameStacks(got.Stacks, now.Stacks) {
		t.Errorf("gained since nothing: %v, want all of %v", got.Stacks, now.Stacks)
	}
}
