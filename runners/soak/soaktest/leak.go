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

// Spec is what an outside client leaks, and how often.
type Spec struct {
	// Stmt is the statement prepared and never closed, as the server takes it
	// ("SELECT ? + 1"; "SELECT $1 + 1" on PostgreSQL: provider.DB.Rebind).
	Stmt                 string
	StmtEvery, ConnEvery time.Duration
	// OpenTx: each leaked connection also begins a transaction and leaves it open, as a
	// handler that returns early between BEGIN and COMMIT does.
	OpenTx bool
}

// StartLeak leaks from pool, until Stop, a prepared statement every sp.StmtEvery,
// never closed, on a connection of its own, and a connection every sp.ConnEvery, held
// idle (inside a transaction with sp.OpenTx).
func StartLeak(pool *sql.DB, sp Spec) (*Leak, error) {
	ctx, cancel := context.WithCancel(context.Background())
	holder, err := pool.Conn(ctx)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("outside client: %w", err)
	}
	l := &Leak{cancel: cancel, done: make(chan struct{}), conns: []*sql.Conn{holder}}
	go l.run(ctx, pool, holder, sp)
	return l, nil
}

func (l *Leak) run(ctx context.Context, pool *sql.DB, holder *sql.Conn, sp Spec) {
	defer close(l.done)
	stmts, conns := time.NewTicker(sp.StmtEvery), time.NewTicker(sp.ConnEvery)
	defer stmts.Stop()
	defer conns.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-stmts.C:
			// database/sql deallocates a Stmt only when it is closed: one dropped on the
			// floor, as a careless cache does, keeps its statement on the server.
			_, err := holder.PrepareContext(ctx, sp.Stmt)
			l.note(ctx, nil, err, 1)
		case <-conns.C:
			c, err := pool.Conn(ctx)
			if err == nil && sp.OpenTx {
				// BEGIN as a plain statement: database/sql's Tx would be rolled back
				// when the connection is closed at Stop, which is what a leak is not.
				if _, err = c.ExecContext(ctx, "BEGIN"); err == nil {
					_, err = c.ExecContext(ctx, "SELECT 1")
				}
			}
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
