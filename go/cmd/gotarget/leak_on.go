//go:build leak

package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"dbbench/go/server"
)

// This file exists only in a test build (go build -tags leak): the soak's planted leak.
// The release build (leak_off.go) has no such knob, and a test checks that its binary
// does not even hold the variable's name.

// leakVar names what to leak and how often: "stmt:500" prepares one statement every
// 500 requests and never closes it; "fd:500" opens /dev/null every 500 requests and
// keeps it. Both may be given, comma-separated.
const leakVar = "DBBENCH_LEAK"

// plantLeak wraps f as leakVar says; f unchanged when it is not set.
func plantLeak(f server.Finder, db *sql.DB, logger *log.Logger) (server.Finder, error) {
	spec := os.Getenv(leakVar)
	if spec == "" {
		return f, nil
	}
	l := &leaky{Finder: f, db: db, log: logger}
	for _, part := range strings.Split(spec, ",") {
		what, every, ok := strings.Cut(strings.TrimSpace(part), ":")
		n, err := strconv.ParseInt(every, 10, 64)
		if !ok || err != nil || n < 1 {
			return nil, fmt.Errorf("%s=%q: want stmt:N and/or fd:N, N a positive number of requests", leakVar, spec)
		}
		switch what {
		case "stmt":
			l.stmtEvery = n
		case "fd":
			l.fdEvery = n
		default:
			return nil, fmt.Errorf("%s=%q: unknown leak %q (want stmt or fd)", leakVar, spec, what)
		}
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
	return l.Finder.Find(ctx, id)
}
