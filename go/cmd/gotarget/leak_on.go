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

	"dbbench/go/server"
)

// This file exists only in a test build (go build -tags leak): the soak's planted leaks
// and compare's planted slowdown. The release build (leak_off.go) has no such knob, and
// a test checks that its binary does not even hold the variable's name.

// leakVar names what to plant and how often: "stmt:500" prepares one statement every
// 500 requests and never closes it; "fd:500" opens /dev/null every 500 requests and
// keeps it; "query:1" reads the user once more on every request (a slowdown and a
// count change, for compare). Comma-separated; "layer:gorm" plants only in that layer's
// targets.
const leakVar = "DBBENCH_LEAK"

// plantLeak wraps f, a target of layer, as leakVar says; f unchanged when it is not set
// or names another layer.
func plantLeak(f server.Finder, db *sql.DB, layer string, logger *log.Logger) (server.Finder, error) {
	spec := os.Getenv(leakVar)
	if spec == "" {
		return f, nil
	}
	l := &leaky{Finder: f, db: db, log: logger}
	only := ""
	for _, part := range strings.Split(spec, ",") {
		what, arg, ok := strings.Cut(strings.TrimSpace(part), ":")
		if what == "layer" && ok && arg != "" {
			only = arg
			continue
		}
		n, err := strconv.ParseInt(arg, 10, 64)
		if !ok || err != nil || n < 1 {
			return nil, fmt.Errorf("%s=%q: want stmt:N, fd:N or query:N, N a positive number of requests, and optionally layer:NAME", leakVar, spec)
		}
		switch what {
		case "stmt":
			l.stmtEvery = n
		case "fd":
			l.fdEvery = n
		case "query":
			l.queryEvery = n
		default:
			return nil, fmt.Errorf("%s=%q: unknown plant %q (want stmt, fd, query or layer)", leakVar, spec, what)
		}
	}
	if only != "" && only != layer {
		return f, nil
	}
	logger.Printf("PLANTED LEAK (test build): %s=%s", leakVar, spec)
	return l, nil
}

// leaky leaks on every stmtEvery-th and fdEvery-th request, and keeps what it leaked
// referenced so that no finalizer closes it.
type leaky struct {
	server.Finder
	db                 *sql.DB
	log                *log.Logger
	stmtEvery, fdEvery int64
	queryEvery         int64
	n                  atomic.Int64
	mu                 sync.Mutex
	stmts              []*sql.Stmt
	files              []*os.File
}

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
	return l.Finder.Find(ctx, id)
}
