//go:build leak

package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"dbbench/go/server"
)

// This file exists only in a test build (go build -tags leak): the soak's planted leaks,
// compare's planted slowdown and the update check's planted lost update. The release
// build (leak_off.go) has no such knob, and a test checks that its binary does not even
// hold the variable's name.

// leakVar names what to plant and how often: "stmt:500" prepares one statement every
// 500 get requests and never closes it; "fd:500" opens /dev/null every 500 get requests
// and keeps it; "query:1" reads the user once more on every get request (a slowdown and
// a count change, for compare); "lostupdate:1" makes every update request (POST
// /users/{id}/visits) a read-then-write without a lock (see unlockedVisit), so
// concurrent visits lose increments, for the update check to catch; "cpu:3400" does
// 3400 multiply-xor steps (about a nanosecond each) on every get request, CPU and
// nothing else (compare's planted +5%); "heap:24" keeps 24 bytes of heap on every get
// request, in 64 KiB chunks so that the live heap grows in a line, not in a slice's
// doublings (the soak's runtime leak). Comma-separated;
// "layer:gorm" plants only in that layer's targets.
const leakVar = "DBBENCH_LEAK"

// plantLeak wraps s, a target of layer, as leakVar says; s unchanged when it is not set
// or names another layer.
func plantLeak(s server.Store, db *sql.DB, layer string, logger *log.Logger) (server.Store, error) {
	spec := os.Getenv(leakVar)
	if spec == "" {
		return s, nil
	}
	l := &leaky{Store: s, db: db, log: logger}
	every := map[string]*int64{"stmt": &l.stmtEvery, "fd": &l.fdEvery, "query": &l.queryEvery, "lostupdate": &l.lostEvery, "cpu": &l.cpuSteps,
		"heap": &l.heapBytes}
	only := ""
	for _, part := range strings.Split(spec, ",") {
		what, arg, ok := strings.Cut(strings.TrimSpace(part), ":")
		if what == "layer" && ok && arg != "" {
			only = arg
			continue
		}
		n, err := strconv.ParseInt(arg, 10, 64)
		if !ok || err != nil || n < 1 {
			return nil, fmt.Errorf("%s=%q: want stmt:N, fd:N, query:N or lostupdate:N, N a positive number of requests, cpu:N steps or heap:N bytes, and optionally layer:NAME", leakVar, spec)
		}
		p := every[what]
		if p == nil {
			return nil, fmt.Errorf("%s=%q: unknown plant %q (want stmt, fd, query, lostupdate, cpu, heap or layer)", leakVar, spec, what)
		}
		*p = n
	}
	if only != "" && only != layer {
		return s, nil
	}
	logger.Printf("PLANTED LEAK (test build): %s=%s", leakVar, spec)
	return l, nil
}

// leaky leaks on every stmtEvery-th and fdEvery-th get request, and keeps what it
// leaked referenced so that no finalizer closes it; it loses updates on every
// lostEvery-th update request.
type leaky struct {
	server.Store
	db                 *sql.DB
	log                *log.Logger
	stmtEvery, fdEvery int64
	queryEvery         int64
	lostEvery          int64
	cpuSteps           int64
	heapBytes          int64
	n, visits          atomic.Int64
	mu                 sync.Mutex
	stmts              []*sql.Stmt
	files              []*os.File
	kept               [][]byte // heap:N, in heapChunk chunks, the last one filling
}

// heapChunk is the size of the chunks heap:N keeps its bytes in.
const heapChunk = 64 << 10

func (l *leaky) Find(ctx context.Context, id uint32) (server.User, error) {
	n := l.n.Add(1)
	if l.stmtEvery > 0 && n%l.stmtEvery == 0 {
		// database/sql prepares on one pooled connection; unused, it stays prepared there.
		if st, err := l.db.PrepareContext(ctx, "SELECT id, name FROM users WHERE id = ?"); err == nil {
			l.mu.Lock()
			l.stmts = append(l.stmts, st)
			l.mu.Unlock()
		}
	}
	if l.fdEvery > 0 && n%l.fdEvery == 0 {
		if fd, err := os.Open(os.DevNull); err == nil {
			l.mu.Lock()
			l.files = append(l.files, fd)
			l.mu.Unlock()
		}
	}
	if l.queryEvery > 0 && n%l.queryEvery == 0 {
		var id2 uint32
		var name string
		// The same read again, through the pool: one more command per request.
		err := l.db.QueryRowContext(ctx, "SELECT id, name FROM users WHERE id = ?", id).Scan(&id2, &name)
		if err != nil && !errors.Is(err, sql.ErrNoRows) { // an unknown id is the layer's to answer
			return server.User{}, fmt.Errorf("planted query: %w", err)
		}
	}
	if l.heapBytes > 0 {
		l.keep(l.heapBytes)
	}
	if l.cpuSteps > 0 && spin(id, l.cpuSteps) == 1 {
		return server.User{}, errors.New("planted cpu: unreachable") // keeps the loop
	}
	return l.Store.Find(ctx, id)
}

// keep holds n more bytes of heap for good.
func (l *leaky) keep(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for n > 0 {
		last := len(l.kept) - 1
		if last < 0 || len(l.kept[last]) == cap(l.kept[last]) {
			l.kept = append(l.kept, make([]byte, 0, heapChunk))
			last++
		}
		take := min(n, int64(cap(l.kept[last])-len(l.kept[last])))
		l.kept[last] = l.kept[last][:len(l.kept[last])+int(take)]
		n -= take
	}
}

// spin is the planted CPU: steps multiply-xor steps, a serial chain the compiler keeps.
func spin(id uint32, steps int64) uint64 {
	h := uint64(id) | 1<<40
	for i := range steps {
		h = h*1099511628211 ^ uint64(i)
	}
	return h
}

func (l *leaky) Visit(ctx context.Context, id uint32) (server.Visits, error) {
	if l.lostEvery > 0 && l.visits.Add(1)%l.lostEvery == 0 {
		return l.unlockedVisit(ctx, id)
	}
	return l.Store.Visit(ctx, id)
}

// unlockedVisit is the update op done wrong, deliberately: in a transaction, but the
// counter read with a plain SELECT (a consistent, non-locking read: no FOR UPDATE), so
// two concurrent visits both read n and both write n+1, and one increment is lost. The
// millisecond between the read and the write widens the window, so that a short test at
// 64 clients on one user loses updates every time, not only when the scheduler obliges.
func (l *leaky) unlockedVisit(ctx context.Context, id uint32) (server.Visits, error) {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return server.Visits{}, err
	}
	defer tx.Rollback()
	var visits uint32
	if err := tx.QueryRowContext(ctx, "SELECT visits FROM users WHERE id = ?", id).Scan(&visits); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return server.Visits{}, server.ErrNotFound
		}
		return server.Visits{}, err
	}
	select {
	case <-time.After(time.Millisecond):
	case <-ctx.Done():
		return server.Visits{}, ctx.Err()
	}
	visits++
	if _, err := tx.ExecContext(ctx, "UPDATE users SET visits = ? WHERE id = ?", visits, id); err != nil {
		return server.Visits{}, err
	}
	if err := tx.Commit(); err != nil {
		return server.Visits{}, err
	}
	return server.Visits{ID: id, Visits: visits}, nil
}
