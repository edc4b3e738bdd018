package server

import "context"

// Limit lets at most n lookups of f run at once; the others wait (until their deadline).
//
// It exists for conn=per-request: database/sql hands a released connection straight to
// a request waiting for one instead of closing it, even with no idle connections kept.
// Waiting here instead, in front of the pool, means the pool never has a waiter, so
// every request really dials its own connection while at most n are open.
func Limit(f Finder, n int) Finder {
	return &limited{f: f, slots: make(chan struct{}, n)}
}

type limited struct {
	f     Finder
	slots chan struct{}
}

func (l *limited) Find(ctx context.Context, id uint32) (User, error) {
	select {
	case l.slots <- struct{}{}:
	case <-ctx.Done():
		return User{}, ctx.Err()
	}
	defer func() { <-l.slots }()
	return l.f.Find(ctx, id)
}
