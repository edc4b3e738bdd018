package run

import (
	"context"
	"sync"
	"time"
)

// turns shares a closed-loop load among the variants of a block (README.md, "Design"):
// one variant at a time may send (its turn), in the order given, round and round. At
// the end of a turn no new request is let through, and the next turn starts only once
// every answer of this one is in: no request of one variant is ever served during
// another's turn, so whatever a process spends between the two edges of a turn (the
// database's and the generator's CPU) belongs to that variant.
//
// Each variant's load generator passes its requests through gate(i).
type turns struct {
	mu       sync.Mutex
	changed  chan struct{} // closed and replaced whenever cur, over or inflight change
	cur      int           // whose turn; -1 between turns
	over     bool
	inflight int
}

func newTurns() *turns { return &turns{changed: make(chan struct{}), cur: -1} }

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
			t.mu.Unlock()
			return true
		}
		ch := t.changed
		t.mu.Unlock()
		select {
		case <-ch:
		case <-abort:
			return false
		}
	}
}

// Leave marks one of the turn's requests answered.
func (g turnGate) Leave() {
	t := g.t
	t.mu.Lock()
	t.inflight--
	if t.inflight == 0 {
		t.broadcast()
	}
	t.mu.Unlock()
}

func (t *turns) broadcast() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// take runs one turn of variant i: open its gate for d, close it, and wait until its
// requests are all answered. It returns how long the turn was open and draining, the
// time its requests took. A cancelled ctx ends the turn at once.
func (t *turns) take(ctx context.Context, i int, d time.Duration) time.Duration {
	start := time.Now()
	t.mu.Lock()
	t.cur = i
	t.broadcast()
	t.mu.Unlock()
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
	t.mu.Lock()
	t.cur = -1
	t.broadcast()
	for t.inflight > 0 && ctx.Err() == nil {
		ch := t.changed
		t.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		t.mu.Lock()
	}
	t.mu.Unlock()
	return time.Since(start)
}

// end lets every waiting request go home: the generators' runs end.
func (t *turns) end() {
	t.mu.Lock()
	t.over = true
	t.broadcast()
	t.mu.Unlock()
}
