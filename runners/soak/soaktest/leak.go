// Package soaktest is what soak's tests and the chaos scenarios share: a client that
// leaks from outside every target.
package soaktest

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// The outside leak of the soak issue: a prepared statement every 4 s never
// deallocated, and an idle connection every 15 s (900 and 240 an hour).
const (
	StmtEvery = 4 * time.Second
	ConnEvery = 15 * time.Second
)

// Leak is an outside client leaking statements and connections on a pool.
type Leak struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	conns  []*sql.Conn
	err    error
	stmts  int
}

// StartLeak leaks from pool, until Stop, a prepared statement every stmtEvery, never
// closed, on a connection of its own, and a connection every connEvery, held idle.
func StartLeak(pool *sql.DB, stmtEvery, connEvery time.Duration) (*Leak, error) {
	ctx, cancel := context.WithCancel(context.Background())
	holder, err := pool.Conn(ctx)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("outside client: %w", err)
	}
	l := &Leak{cancel: cancel, done: make(chan struct{}), conns: []*sql.Conn{holder}}
	go l.run(ctx, pool, holder, stmtEvery, connEvery)
	return l, nil
}

func (l *Leak) run(ctx context.Context, pool *sql.DB, holder *sql.Conn, stmtEvery, connEvery time.Duration) {
	defer close(l.done)
	stmts, conns := time.NewTicker(stmtEvery), time.NewTicker(connEvery)
	defer stmts.Stop()
	defer conns.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-stmts.C:
			// database/sql deallocates a Stmt only when it is closed: one dropped on the
			// floor, as a careless cache does, keeps its statement on the server.
			_, err := holder.PrepareContext(ctx, "SELECT ? + 1")
			l.note(ctx, nil, err, 1)
		case <-conns.C:
			c, err := pool.Conn(ctx)
			l.note(ctx, c, err, 0)
		}
	}
}

// note keeps what one tick leaked, or its error (none when stopped meanwhile).
func (l *Leak) note(ctx context.Context, c *sql.Conn, err error, stmts int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err == nil:
		l.stmts += stmts
		if c != nil {
			l.conns = append(l.conns, c)
		}
	case ctx.Err() == nil && l.err == nil:
		l.err = fmt.Errorf("outside client: %w", err)
	}
}

// Stop ends the leak and closes what it took. It returns the statements and
// connections leaked (the statements' own connection not counted) and the first error
// the client met.
func (l *Leak) Stop() (stmts, conns int, err error) {
	l.cancel()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
	return l.stmts, len(l.conns) - 1, l.err
}
