package main

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// pgxpool's tracer times each hold from acquire to release, and counts as a wait only
// an acquire that starts with every connection of the pool held.
func TestHoldTimerCountsHoldsAndWaitsForAFullPool(t *testing.T) {
	h := &holdTimer{since: map[*pgx.Conn]time.Time{}, max: 1}
	a, b := &pgx.Conn{}, &pgx.Conn{}
	acquire := func(c *pgx.Conn) {
		ctx := h.TraceAcquireStart(context.Background(), nil, pgxpool.TraceAcquireStartData{})
		h.TraceAcquireEnd(ctx, nil, pgxpool.TraceAcquireEndData{Conn: c})
	}
	acquire(a) // the pool had room
	if n, _ := h.waits.Stats(); n != 0 {
		t.Fatalf("%d waits for a pool with room", n)
	}
	acquire(b) // a is still held: the pool of 1 is full
	time.Sleep(time.Millisecond)
	h.TraceRelease(nil, pgxpool.TraceReleaseData{Conn: a})
	h.TraceRelease(nil, pgxpool.TraceReleaseData{Conn: b})
	if n, _ := h.waits.Stats(); n != 1 {
		t.Errorf("%d waits, want 1: the second acquire found the pool full", n)
	}
	if n, d := h.holds.Stats(); n != 2 || d < time.Millisecond {
		t.Errorf("%d holds in %v, want 2, the first at least 1ms", n, d)
	}
	if len(h.since) != 0 {
		t.Errorf("%d holds left open after every release", len(h.since))
	}
}
