package server

import (
	"context"
	"errors"
)

// Limit lets at most n requests of s work on the database at once, whatever their op;
// the others wait (until their deadline).
//
// It exists for conn=per-request: database/sql hands a released connection straight to
// a request waiting for one instead of closing it, even with no idle connections kept.
// Waiting here instead, in front of the pool, means the pool never has a waiter, so
// every request really dials its own connection while at most n are open.
func Limit(s Store, n int) Store {
	return &limited{s: s, slots: make(chan struct{}, n)}
}

type limited struct {
	s     Store
	slots chan struct{}
}

func (l *limited) acquire(ctx context.Context) error {
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *limited) release() { <-l.slots }

func (l *limited) Find(ctx context.Context, id uint32) (User, error) {
	if err := l.acquire(ctx); err != nil {
		return User{}, err
	}
	defer l.release()
	return l.s.Find(ctx, id)
}

func (l *limited) List(ctx context.Context, after uint32, limit int) ([]User, error) {
	if err := l.acquire(ctx); err != nil {
		return nil, err
	}
	defer l.release()
	return l.s.List(ctx, after, limit)
}

func (l *limited) Insert(ctx context.Context, name string) (User, error) {
	if err := l.acquire(ctx); err != nil {
		return User{}, err
	}
	defer l.release()
	return l.s.Insert(ctx, name)
}

func (l *limited) Visit(ctx context.Context, id uint32) (Visits, error) {
	if err := l.acquire(ctx); err != nil {
		return Visits{}, err
	}
	defer l.release()
	return l.s.Visit(ctx, id)
}

// UserOrders and ListOrders pass the orders ops on when s reads related rows; the
// handler asks only a layer whose Fetches name forms, so errNotRelated is never seen.
func (l *limited) UserOrders(ctx context.Context, id uint32, limit int, fetch string) (UserOrders, error) {
	r, ok := l.s.(Related)
	if !ok {
		return UserOrders{}, errNotRelated
	}
	if err := l.acquire(ctx); err != nil {
		return UserOrders{}, err
	}
	defer l.release()
	return r.UserOrders(ctx, id, limit, fetch)
}

func (l *limited) ListOrders(ctx context.Context, after uint32, limit, per int, fetch string) ([]UserOrders, error) {
	r, ok := l.s.(Related)
	if !ok {
		return nil, errNotRelated
	}
	if err := l.acquire(ctx); err != nil {
		return nil, err
	}
	defer l.release()
	return r.ListOrders(ctx, after, limit, per, fetch)
}

var errNotRelated = errors.New("the layer reads no related rows")
