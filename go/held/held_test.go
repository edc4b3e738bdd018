package held

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"testing"
	"time"
)

// The fake driver is the pure logic's stand-in: each query takes a fixed time, so the
// holds database/sql makes of it are known. runners/measure/target's TestGoDBStats times the
// real driver against MariaDB.
type fakeDriver struct{}

func (fakeDriver) Open(string) (driver.Conn, error) { return &fakeConn{}, nil }

type fakeConnector struct{ opened int }

func (k *fakeConnector) Connect(context.Context) (driver.Conn, error) {
	k.opened++
	return &fakeConn{}, nil
}
func (*fakeConnector) Driver() driver.Driver { return fakeDriver{} }

type fakeConn struct{ closed bool }

const queryTime = 3 * time.Millisecond

func (*fakeConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("no prepare") }
func (c *fakeConn) Close() error                      { c.closed = true; return nil }
func (*fakeConn) Begin() (driver.Tx, error)           { return nil, errors.New("no tx") }
func (*fakeConn) BeginTx(context.Context, driver.TxOptions) (driver.Tx, error) {
	return nil, errors.New("no tx")
}
func (*fakeConn) PrepareContext(context.Context, string) (driver.Stmt, error) {
	return nil, errors.New("no prepare")
}
func (*fakeConn) ExecContext(context.Context, string, []driver.NamedValue) (driver.Result, error) {
	time.Sleep(queryTime)
	return driver.RowsAffected(1), nil
}
func (*fakeConn) QueryContext(context.Context, string, []driver.NamedValue) (driver.Rows, error) {
	time.Sleep(queryTime)
	return &oneRow{}, nil
}
func (*fakeConn) Ping(context.Context) error               { return nil }
func (*fakeConn) ResetSession(context.Context) error       { return nil }
func (c *fakeConn) IsValid() bool                          { return !c.closed }
func (*fakeConn) CheckNamedValue(*driver.NamedValue) error { return nil }

type oneRow struct{ done bool }

func (*oneRow) Columns() []string { return []string{"n"} }
func (*oneRow) Close() error      { return nil }
func (r *oneRow) Next(dest []driver.Value) error {
	if r.done {
		return io.EOF
	}
	r.done, dest[0] = true, int64(1)
	return nil
}

// TestHoldsCoverTheRequestsWork: one hold per request, from checkout to the rows'
// close, so a request that works on between its query and the close holds longer.
func TestHoldsCoverTheRequestsWork(t *testing.T) {
	for _, idle := range []int{2, 0} { // pooled, and a connection per request
		var c Counter
		k := &fakeConnector{}
		db := sql.OpenDB(Wrap(k, &c))
		db.SetMaxIdleConns(idle)
		const requests, work = 5, 2 * time.Millisecond
		for range requests {
			rows, err := db.Query("SELECT 1")
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				time.Sleep(work) // the app's own work while it holds the connection
			}
			rows.Close()
		}
		if _, err := db.Exec("UPDATE t SET n = 1"); err != nil {
			t.Fatal(err)
		}
		holds, total := c.Stats()
		if holds != requests+1 {
			t.Errorf("idle %d: %d holds, want %d", idle, holds, requests+1)
		}
		if min := requests*(queryTime+work) + queryTime; total < min {
			t.Errorf("idle %d: held %v in all, want at least %v", idle, total, min)
		}
		if want := map[int]int{2: 1, 0: requests + 1}[idle]; k.opened != want {
			t.Errorf("idle %d: %d connections opened, want %d", idle, k.opened, want)
		}
		db.Close()
	}
}

// A connection without driver.Validator (pgx's) is timed all the same: its holds end
// at IsValid, which the wrapper answers as database/sql would, valid.
func TestConnWithoutValidatorIsTimed(t *testing.T) {
	var c Counter
	db := sql.OpenDB(Wrap(noValidatorConnector{}, &c))
	defer db.Close()
	db.SetMaxIdleConns(1)
	for range 3 {
		if _, err := db.Exec("UPDATE t SET n = 1"); err != nil {
			t.Fatal(err)
		}
	}
	if holds, total := c.Stats(); holds != 3 || total < 3*queryTime {
		t.Errorf("%d holds in %v, want 3 of at least %v each", holds, total, queryTime)
	}
}

type noValidatorConnector struct{}

// noValidator has fullConn's methods only: fakeConn's IsValid is not promoted.
type noValidator struct{ fullConn }

func (noValidatorConnector) Connect(context.Context) (driver.Conn, error) {
	return noValidator{&fakeConn{}}, nil
}
func (noValidatorConnector) Driver() driver.Driver { return fakeDriver{} }

// A connection without the interfaces database/sql would use is not wrapped.
func TestPartialConnPassesThrough(t *testing.T) {
	k := connector{inner: partialConnector{}, c: &Counter{}}
	dc, err := k.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, wrapped := dc.(*conn); wrapped {
		t.Error("a connection lacking the context interfaces was wrapped")
	}
}

type partialConnector struct{}

func (partialConnector) Connect(context.Context) (driver.Conn, error) { return partialConn{}, nil }
func (partialConnector) Driver() driver.Driver                        { return fakeDriver{} }

type partialConn struct{}

func (partialConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("no") }
func (partialConn) Close() error                        { return nil }
func (partialConn) Begin() (driver.Tx, error)           { return nil, errors.New("no") }

// A connection without driver.NamedValueChecker (lib/pq's) is timed too, and its
// arguments reach it converted by database/sql's default, as they would unwrapped.
func TestConnWithoutNamedValueCheckerIsTimed(t *testing.T) {
	var c Counter
	inner := &argsConn{noValidator: noValidator{&fakeConn{}}}
	db := sql.OpenDB(Wrap(argsConnector{inner}, &c))
	defer db.Close()
	if _, err := db.Exec("UPDATE t SET n = $1", uint32(7)); err != nil {
		t.Fatal(err)
	}
	if holds, _ := c.Stats(); holds != 1 {
		t.Errorf("%d holds, want 1", holds)
	}
	if len(inner.args) != 1 || inner.args[0].Value != int64(7) {
		t.Errorf("the driver got %+v, want database/sql's default conversion, int64(7)", inner.args)
	}
}

type argsConnector struct{ c *argsConn }

func (k argsConnector) Connect(context.Context) (driver.Conn, error) { return k.c, nil }
func (argsConnector) Driver() driver.Driver                          { return fakeDriver{} }

// argsConn has fullConn's methods and keeps the arguments of its last ExecContext.
type argsConn struct {
	noValidator
	args []driver.NamedValue
}

func (c *argsConn) ExecContext(_ context.Context, _ string, args []driver.NamedValue) (driver.Result, error) {
	c.args = args
	return driver.RowsAffected(1), nil
}
