// Package held times how long database/sql keeps each connection checked out: from
// the moment the pool hands it to a request (ResetSession, or Connect for a new one)
// to the moment the request gives it back (IsValid). A pool's size depends on this
// hold, and the database's answer time alone, which a proxy sees, leaves out the app's
// own work between taking a connection and giving it back.
//
// Two cases are timed wrong, both rare in a measurement: a connection the pool opens in
// the background and leaves idle before its first use counts its idle time in that
// first hold (database/sql resets only a connection used before), and one returned as
// bad never reaches IsValid, so its hold is not counted.
package held

import (
	"context"
	"database/sql/driver"
	"sync/atomic"
	"time"
)

// Counter adds up the holds of every connection a Wrap'd connector opens.
type Counter struct {
	holds, nanos atomic.Int64
}

// Stats is how many holds ended and how long they took together.
func (c *Counter) Stats() (holds int64, total time.Duration) {
	return c.holds.Load(), time.Duration(c.nanos.Load())
}

// Add counts one hold of d: Wrap's connections add theirs, and a pool that times its
// own (gotarget's pgxpool) adds its.
func (c *Counter) Add(d time.Duration) {
	c.nanos.Add(int64(d))
	c.holds.Add(1)
}

// Wrap times inner's connections into c. A connection that lacks one of the
// interfaces database/sql would use on it (fullConn) is passed through untimed, so
// wrapping never changes which commands a driver sends.
func Wrap(inner driver.Connector, c *Counter) driver.Connector {
	return connector{inner: inner, c: c}
}

type connector struct {
	inner driver.Connector
	c     *Counter
}

func (k connector) Connect(ctx context.Context) (driver.Conn, error) {
	t0 := time.Now()
	dc, err := k.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	full, ok := dc.(fullConn)
	if !ok {
		return dc, nil
	}
	return &conn{fullConn: full, c: k.c, start: t0}, nil
}

func (k connector) Driver() driver.Driver { return k.inner.Driver() }

// fullConn is every interface of go-sql-driver/mysql's, pgx's and lib/pq's connections
// that database/sql calls; the legacy Execer and Queryer are left out because it
// prefers the context ones. driver.Validator is not required: pgx's connection lacks
// it, and database/sql takes a connection without it as valid, which conn.IsValid says
// too. Nor is driver.NamedValueChecker: lib/pq's lacks it, and conn.CheckNamedValue
// then hands each argument to database/sql's own conversion, as if unwrapped.
type fullConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
}

// conn is a connection whose hold is timed. database/sql calls ResetSession and
// IsValid under the connection's own lock, so start needs none of its own.
type conn struct {
	fullConn
	c     *Counter
	start time.Time // zero: not checked out
}

// ResetSession is called as the pool hands out a connection it used before.
func (x *conn) ResetSession(ctx context.Context) error {
	x.start = time.Now()
	return x.fullConn.ResetSession(ctx)
}

// IsValid is called as a request gives its connection back.
func (x *conn) IsValid() bool {
	if !x.start.IsZero() {
		x.c.Add(time.Since(x.start))
		x.start = time.Time{}
	}
	if v, ok := x.fullConn.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// CheckNamedValue is the driver's own; a driver without one gets database/sql's
// default conversion, which driver.ErrSkip asks for.
func (x *conn) CheckNamedValue(nv *driver.NamedValue) error {
	if c, ok := x.fullConn.(driver.NamedValueChecker); ok {
		return c.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}
