package roundtrip

import (
	"context"
	"database/sql"
	"strconv"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"dbbench/runners/measure/dbtest"
)

// open returns a pool of one connection to dsn with interpolateParams as given.
func open(t *testing.T, dsn string, interpolate bool) *sql.DB {
	t.Helper()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.InterpolateParams = interpolate
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// The driver's well-known behaviour, seen through the log, the counters and the wire:
// with interpolateParams=false a query with an argument is Prepare + Execute + Close
// stmt; with true it is one Query. A ping shows only on the wire, in
// Com_admin_commands and in performance_schema, never in the general log.
func TestCaptureCountsDriverCommands(t *testing.T) {
	db := dbtest.Start(t, 100)
	admin, err := db.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	proxy, err := StartProxyOn("127.0.0.1", db.Config.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	viaProxy, err := RewriteDSN(db.DSN(), proxy.Addr())
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	ctx := context.Background()

	for _, tc := range []struct {
		interpolate bool
		log, wire   map[string]int64
		status      map[string]int64
	}{
		{false,
			map[string]int64{"Prepare": n, "Execute": n, "Close stmt": n},
			map[string]int64{"Prepare": n, "Execute": n, "Close stmt": n, "Ping": n},
			map[string]int64{"Com_stmt_prepare": n, "Com_stmt_execute": n, "Com_stmt_close": n, "Com_select": n, "Questions": n, "Com_admin_commands": n}},
		{true,
			map[string]int64{"Query": n},
			map[string]int64{"Query": n, "Ping": n},
			map[string]int64{"Com_stmt_prepare": 0, "Com_stmt_execute": 0, "Com_select": n, "Questions": n, "Com_admin_commands": n}},
	} {
		pool := open(t, viaProxy, tc.interpolate)
		if err := pool.Ping(); err != nil { // connect before the capture
			t.Fatal(err)
		}
		res, err := Capture(ctx, admin, n, func(ctx context.Context) error {
			for id := 1; id <= n; id++ {
				var name string
				if err := pool.QueryRowContext(ctx, "SELECT name FROM users WHERE id = ?", id).Scan(&name); err != nil {
					return err
				}
				if err := pool.PingContext(ctx); err != nil {
					return err
				}
			}
			return nil
		}, WithProxy(proxy))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("interpolate=%v log=%v wire=%v status=%v queries=%v ps=%v rows=%d time=%v off=%q", tc.interpolate, res.Log, res.Wire, res.Status, res.Queries, res.Statements, res.RowsExamined, res.ServerTime, res.StatementsOff)
		assertCounts(t, "general log", res.Log, tc.log)
		assertCounts(t, "wire", res.Wire, tc.wire)
		// performance_schema sees every command the client sent, Ping too, and each
		// SELECT by primary key examines its one row.
		assertCounts(t, "performance_schema", res.Statements, tc.wire)
		if res.RowsExamined != n || res.ServerTime <= 0 {
			t.Errorf("performance_schema: %d rows examined (want %d), server time %v", res.RowsExamined, n, res.ServerTime)
		}
		for k, want := range tc.status {
			if got := res.Status[k]; got != want {
				t.Errorf("interpolate=%v: status %s delta = %d, want %d", tc.interpolate, k, got, want)
			}
		}
		if per := res.PerRequest(); tc.interpolate && per["Query"] != 1 {
			t.Errorf("PerRequest()[Query] = %v, want 1", per["Query"])
		}
		if tc.interpolate {
			// Each COM_QUERY is a 4-byte header, the command byte and the text with the id
			// written in; each COM_PING a header and its byte.
			var want int64
			for id := 1; id <= n; id++ {
				want += int64(4+1+len("SELECT name FROM users WHERE id = ")+len(strconv.Itoa(id))) + 5
			}
			if res.ToServer != want || res.ToClient <= res.ToServer {
				t.Errorf("bytes to server %d (want %d), to client %d (want more: rows and OKs)", res.ToServer, want, res.ToClient)
			}
		}
		pool.Close()
	}

	// A read-modify-write in a transaction, as the update op sends it: the command types
	// say Query and Prepare, the Com_ counters name BEGIN, SELECT, UPDATE and COMMIT (a
	// prepared statement's execution counts under its statement's counter too).
	pool := open(t, viaProxy, false)
	if err := pool.Ping(); err != nil { // connect before the capture
		t.Fatal(err)
	}
	res, err := Capture(ctx, admin, n, func(ctx context.Context) error {
		for id := 1; id <= n; id++ {
			tx, err := pool.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			var visits int
			if err := tx.QueryRowContext(ctx, "SELECT visits FROM users WHERE id = ? FOR UPDATE", id).Scan(&visits); err != nil {
				tx.Rollback()
				return err
			}
			if _, err := tx.ExecContext(ctx, "UPDATE users SET visits = ? WHERE id = ?", visits+1, id); err != nil {
				tx.Rollback()
				return err
			}
			if err := tx.Commit(); err != nil {
				return err
			}
		}
		return nil
	}, WithProxy(proxy))
	if err != nil {
		t.Fatal(err)
	}
	assertCounts(t, "general log", res.Log, map[string]int64{"Query": 2 * n, "Prepare": 2 * n, "Execute": 2 * n, "Close stmt": 2 * n})
	assertCounts(t, "performance_schema", res.Statements, res.Log)
	if res.RowsExamined != 2*n { // the locked row read, then updated
		t.Errorf("transaction: %d rows examined, want %d", res.RowsExamined, 2*n)
	}
	for k, want := range map[string]int64{"Com_begin": n, "Com_commit": n, "Com_rollback": 0, "Com_select": n, "Com_update": n, "Com_insert": 0} {
		if got := res.Status[k]; got != want {
			t.Errorf("transaction: status %s delta = %d, want %d", k, got, want)
		}
	}
	pool.Close()

	// The general log is off again afterwards.
	var on int
	if err := admin.QueryRow("SELECT @@general_log").Scan(&on); err != nil || on != 0 {
		t.Fatalf("general_log = %d, %v after Capture; want 0", on, err)
	}
}

// Commands that trickle in after the last response, each within Settle of the one
// before but together longer than Settle, are all counted: Capture waits for the
// counters to be still, not for a fixed time. (With the fixed wait Capture had, the
// later ones were missed.) The gaps leave Settle-gap of slack for a loaded machine.
func TestCaptureWaitsForLateCommands(t *testing.T) {
	saved := Settle
	Settle = time.Second
	defer func() { Settle = saved }()
	const late, gap = 4, 400 * time.Millisecond
	db := dbtest.Start(t, 100)
	admin, err := db.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	pool := open(t, db.DSN(), true)
	if err := pool.Ping(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	res, err := Capture(context.Background(), admin, 1, func(ctx context.Context) error {
		go func() {
			for range late {
				time.Sleep(gap)
				if _, err := pool.Exec("SELECT 1"); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
		_, err := pool.Exec("SELECT 1")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := res.Log["Query"]; got != 1+late {
		t.Fatalf("general log counted %d queries, want %d (the last %d came %v apart after the response)", got, 1+late, late, gap)
	}
}

// On a shared server the log is someone else's too: Capture keeps the log table's rows
// from before it and puts general_log, log_output and performance_schema's statement
// instruments and consumers back as it found them.
func TestCaptureLeavesTheServersLogAsItFoundIt(t *testing.T) {
	db := dbtest.Start(t, 100)
	admin, err := db.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	admin.SetMaxOpenConns(1) // the session that logs is the one that reads back
	psSetup := func() string {
		var s string
		err := admin.QueryRow("SELECT GROUP_CONCAT(CONCAT(NAME, ENABLED, COALESCE(TIMED, '')) ORDER BY NAME) FROM " +
			"(SELECT NAME, ENABLED, TIMED FROM performance_schema.setup_instruments WHERE NAME LIKE 'statement/%' " +
			"UNION ALL SELECT NAME, ENABLED, NULL FROM performance_schema.setup_consumers) AS s").Scan(&s)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, q := range []string{"SET SESSION group_concat_max_len = 1000000",
		"UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'NO' WHERE NAME = 'statement/sql/select'",
		"UPDATE performance_schema.setup_consumers SET ENABLED = 'NO' WHERE NAME = 'thread_instrumentation'"} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	psBefore := psSetup()
	for _, q := range []string{"SET GLOBAL log_output = 'TABLE'", "SET GLOBAL general_log = 1",
		"SELECT 'the owner query 4711'", "SET GLOBAL general_log = 0", "SET GLOBAL log_output = 'FILE'"} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	count := func() (n int) {
		if err := admin.QueryRow("SELECT COUNT(*) FROM mysql.general_log WHERE argument LIKE '%owner query 4711%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	if before == 0 {
		t.Fatal("the owner's row is not in the log table")
	}
	pool := open(t, db.DSN(), true)
	res, err := Capture(context.Background(), admin, 1, func(ctx context.Context) error {
		_, err := pool.ExecContext(ctx, "SELECT 1")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Log["Query"]; got != 1 {
		t.Errorf("counted %d queries, want 1 (rows from before the capture must not count)", got)
	}
	if got := res.Statements["Query"]; got != 1 {
		t.Errorf("performance_schema counted %d queries, want 1 (%v; %s)", got, res.Statements, res.StatementsOff)
	}
	if after := psSetup(); after != psBefore {
		t.Errorf("performance_schema's setup after the capture:\n%s\nwant as before:\n%s", after, psBefore)
	}
	if after := count(); after != before {
		t.Errorf("the owner's log rows: %d before, %d after the capture", before, after)
	}
	var on int
	var output string
	if err := admin.QueryRow("SELECT @@GLOBAL.general_log, @@GLOBAL.log_output").Scan(&on, &output); err != nil || on != 0 || output != "FILE" {
		t.Errorf("after the capture general_log = %d, log_output = %q (%v); want 0 and FILE as before", on, output, err)
	}
}

// assertCounts compares exactly: every wanted command with its count and nothing else.
func assertCounts(t *testing.T, what string, got, want map[string]int64) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s = %d, want %d (all: %v)", what, k, got[k], v, got)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok && v != 0 {
			t.Errorf("%s: unexpected %s = %d (all: %v)", what, k, v, got)
		}
	}
}

func TestRewriteDSN(t *testing.T) {
	got, err := RewriteDSN("u:p@tcp(127.0.0.1:3306)/db?interpolateParams=true", "127.0.0.1:9")
	if err != nil {
		t.Fatal(err)
	}
	if want := "u:p@tcp(127.0.0.1:9)/db?interpolateParams=true"; got != want {
		t.Fatalf("RewriteDSN = %q, want %q", got, want)
	}
	if _, err := RewriteDSN("not a dsn", "x"); err == nil {
		t.Fatal("RewriteDSN accepted a malformed DSN")
	}
}
