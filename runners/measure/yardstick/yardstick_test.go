package yardstick

import (
	"testing"
)

// The work is the same every time: the same sorted middle, the same hash, and a chase
// that is one cycle through every slot (Sattolo), so a trial never shortcuts.
func TestWorkIsFixed(t *testing.T) {
	prepare.Do(setup)
	a, b, c := sortRound(&prepared), hashRound(prepared.bytes), chaseRound(prepared.next)
	if a2, b2, c2 := sortRound(&prepared), hashRound(prepared.bytes), chaseRound(prepared.next); a != a2 || b != b2 || c != c2 {
		t.Fatalf("two rounds differ: %d %d %d, then %d %d %d", a, b, c, a2, b2, c2)
	}
	steps, i := 0, prepared.next[0]
	for steps = 1; i != 0 && steps <= chaseLen; steps++ {
		i = prepared.next[i]
	}
	if steps != chaseLen {
		t.Fatalf("the chase returns to 0 after %d steps, want one cycle of %d", steps, chaseLen)
	}
	if c != 0 {
		t.Errorf("a full chase from 0 ends at %d, want 0", c)
	}
}

func TestReadAndTake(t *testing.T) {
	trials := Read(3)
	if len(trials) != 3 {
		t.Fatalf("Read(3) gave %d trials", len(trials))
	}
	for _, s := range trials {
		if !(s > 0) {
			t.Errorf("trial of %v s, want > 0", s)
		}
	}
	r := Take("start", 2)
	if r.Phase != "start" || len(r.Trials) != 2 || len(r.Kernel) != 2 || r.At.IsZero() {
		t.Errorf("Take: %+v", r)
	}
	for _, s := range r.Kernel {
		if !(s > 0) {
			t.Errorf("kernel trial of %v s, want > 0", s)
		}
	}
	if y := New(); y.Work != Description || y.KernelWork != KernelDescription || len(y.Readings) != 0 {
		t.Errorf("New: %+v, want an empty yardstick of this package's work", y)
	}
}
