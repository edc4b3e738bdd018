package poolsize

import (
	"math"
	"testing"
)

// Erlang C against values worked by hand: one server waits with probability ρ (M/M/1);
// two at one Erlang wait a third of the time.
func TestErlangCByHand(t *testing.T) {
	for _, c := range []struct {
		c    int
		a    float64
		want float64
	}{{1, 0.3, 0.3}, {1, 0.9, 0.9}, {2, 1, 1.0 / 3}, {3, 0, 0}, {3, 3, 1}, {3, 4, 1}} {
		if got := ErlangC(c.c, c.a); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("ErlangC(%d, %g) = %g, want %g", c.c, c.a, got, c.want)
		}
	}
	if !math.IsNaN(ErlangC(0, 1)) {
		t.Error("ErlangC of no server is not NaN")
	}
	// A large pool at moderate load: no overflow, and close to 0.
	if got := ErlangC(500, 400); !(got >= 0 && got < 1e-6) {
		t.Errorf("ErlangC(500, 400) = %g, want a tiny probability", got)
	}
}

// The G/G/c tail: at v = 1 it is M/M/c's; less variable traffic waits less, none at all
// when arrivals and holds are both regular, and the chance to wait is never exceeded.
func TestWaitTailGG(t *testing.T) {
	c, rate, s, wait := 4, 3000.0, 0.001, 0.005
	mmc := WaitTail(c, rate, s, wait)
	if got := WaitTailGG(c, rate, s, wait, 1); got != mmc {
		t.Errorf("WaitTailGG(v=1) = %g, want M/M/c's %g", got, mmc)
	}
	// By hand: a = 3, C(4, 3) = 0.5094, exp(-(4-3)·5/(1·0.5)) = exp(-10).
	if got, want := WaitTailGG(c, rate, s, wait, 0.5), 0.50943*math.Exp(-10); math.Abs(got-want) > 1e-8 {
		t.Errorf("WaitTailGG(v=0.5) = %g, want %g", got, want)
	}
	if got := WaitTailGG(c, rate, s, wait, 0); got != 0 {
		t.Errorf("regular arrivals and holds below capacity wait with probability %g, want 0", got)
	}
	if got := WaitTailGG(c, 4000, s, wait, 0); got != 1 {
		t.Errorf("at capacity the queue grows: %g, want 1", got)
	}
	if WaitTailGG(c, rate, s, wait, 0.2) >= WaitTailGG(c, rate, s, wait, 0.8) {
		t.Error("more variable traffic waited less")
	}
}
