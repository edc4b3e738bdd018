package run

import (
	"context"
	"sync"
	"time"
)

// turns shares a closed-loop load among the variants of a block (README.md, "How a
// language is measured"): one variant at a time may send (its turn), round and round. At
// the end of a turn no new request is let through, and the next turn starts only once
// every answer of this one is in: no request of one variant is ever served during
// another's turn, so whatever a process spends between the two edges of a turn (the
// database's and the generator's CPU) belongs to that variant.
//
// Each variant's load generator passes its requests through gate(i). A variant's
// waiting connections are woken only when its own turn starts (each has its own
// channel), and only the turn's taker when the last answer of a turn is in: with
// hundreds of connections waiting in a block, one channel for all would wake every one
// of them at every change, a cost the generator's CPU per request would carry.
type turns struct {
	mu       sync.Mutex
	wake     []chan struct{} // by variant: closed when its turn starts, or the block ends
	drained  chan struct{}   // closed when the last answer of a closed turn is in
	cur      int             // whose turn; -1 between turns
	over     bool
	inflight int
	admitted int64 // requests let through in the current turn
	waiting  []int // by variant: connections waiting at its gate
}

func newTurns(n int) *turns {
	t := &turns{wake: make([]chan struct{}, n), waiting: make([]int, n), cur: -1}
	for i := range t.wake {
		t.wake[i] = make(chan struct{})
	}
	return t
}

// gate is variant i's loadgen.Gate.
func (t *turns) gate(i int) turnGate { return turnGate{t, i} }

type turnGate struct {
	t *turns
	i int
}

// Enter waits for variant i's turn; false once the block is over or the run aborted.
func (g turnGate) Enter(abort <-chan struct{}) bool {
	t := g.t
	for {
		t.mu.Lock()
		switch {
		case t.over:
			t.mu.Unlock()
			return false
		case t.cur == g.i:
			t.inflight++
			t.admitted++
			t.mu.Unlock()
			return true
		}
		ch := t.wake[g.i]
		t.waiting[g.i]++
		t.mu.Unlock()
		aborted := false
		select {
		case <-ch:
		case <-abort:
			aborted = true
		}
		t.mu.Lock()
		t.waiting[g.i]--
		t.mu.Unlock()
		if aborted {
			return false
		}
	}
}

// ready waits until want[i] connections wait at variant i's gate, for every i (all
// connected and parked: what they did to get there is before the block's first turn),
// or until timeout or ctx ends it.
func (t *turns) ready(ctx context.Context, want []int, timeout time.Duration) {
	for deadline := time.Now().Add(timeout); ctx.Err() == nil && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		t.mu.Lock()
		all := true
		for i, w := range want {
			all = all && t.waiting[i] >= w
		}
		t.mu.Unlock()
		if all {
			return
		}
	}
}

// Leave marks one of the turn's requests answered.
func (g turnGate) Leave() {
	t := g.t
	t.mu.Lock()
	t.inflight--
	if t.inflight == 0 && t.drained != nil {
		close(t.drained)
		t.drained = nil
	}
	t.mu.Unlock()
}

// take runs one turn of variant i: open its gate for d, close it, and wait until its
// requests are all answered. It returns how long the turn was open and draining, the
// time its requests took, and how many requests it let through. A cancelled ctx ends
// the turn at once.
func (t *turns) take(ctx context.Context, i int, d time.Duration) (time.Duration, int64) {
	start := time.Now()
	t.mu.Lock()
	t.cur, t.admitted = i, 0
	close(t.wake[i])
	t.mu.Unlock()
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
	t.mu.Lock()
	t.cur = -1
	admitted := t.admitted
	t.wake[i] = make(chan struct{}) // for the connections that come back to the gate
	var drained chan struct{}
	if t.inflight > 0 {
		t.drained = make(chan struct{})
		drained = t.drained
	}
	t.mu.Unlock()
	if drained != nil {
		select {
		case <-drained:
		case <-ctx.Done():
		}
	}
	return time.Since(start), admitted
}

// end lets every waiting request go home: the generators' runs end.
func (t *turns) end() {
	t.mu.Lock()
	t.over = true
	for i := range t.wake {
		if i != t.cur {
			close(t.wake[i])
		}
	}
	t.mu.Unlock()
}
