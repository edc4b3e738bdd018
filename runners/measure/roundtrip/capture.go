// Package roundtrip counts the MySQL commands a target sends per request: from the
// server's general log (by command type), cross-checked with SHOW GLOBAL STATUS deltas
// and performance_schema's statement events (perfschema.go), and optionally on the wire
// through a counting Proxy, which also sees what the general log does not (COM_PING).
package roundtrip

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// StatusVars are the SHOW GLOBAL STATUS counters whose deltas a capture records.
// Questions counts COM_QUERY and COM_STMT_EXECUTE but not Prepare or Close;
// Com_admin_commands counts COM_PING among others. Com_begin … Com_update name the
// statements of the write ops (a prepared statement's execution counts under its
// statement's Com_ too), which the command types alone do not: an update is BEGIN, a
// locking SELECT, an UPDATE and a COMMIT.
var StatusVars = []string{
	"Questions", "Queries", "Com_select", "Com_stmt_prepare", "Com_stmt_execute",
	"Com_stmt_close", "Com_stmt_reprepare", "Com_change_db", "Com_set_option",
	"Com_admin_commands", "Connections", "Bytes_sent", "Bytes_received",
	"Com_begin", "Com_commit", "Com_rollback", "Com_insert", "Com_update",
}

// Settle is how long the server's command counters must stay still before Capture reads
// them: a driver may send COM_STMT_CLOSE or COM_QUIT after the HTTP response has already
// gone out (php-fpm closes statements and per-request connections once the response is
// flushed), and those must be counted with their request. Capture waits for quiet, not
// for a time: a late command restarts the wait, so a loaded machine that delays it
// delays the capture, not the count.
var Settle = 300 * time.Millisecond

// quietLimit bounds the wait for quiet. A server that other clients keep busy (a shared
// dsn server) is never quiet; Capture then reads the counters anyway and says so.
var quietLimit = 30 * time.Second

// quietVars are the counters that move with a client's commands and not with Capture's
// own SHOW GLOBAL STATUS; Threads_connected and Prepared_stmt_count fall when a Quit or
// a Close stmt has been processed.
var quietVars = []string{
	"Com_select", "Com_stmt_prepare", "Com_stmt_execute", "Com_stmt_close", "Com_change_db",
	"Com_set_option", "Com_admin_commands", "Connections", "Threads_connected", "Prepared_stmt_count",
	"Com_begin", "Com_commit", "Com_rollback", "Com_insert", "Com_update",
}

// Result is what one capture saw.
type Result struct {
	Requests int
	// Postgres says the capture was CapturePostgres's: Wire counts PostgreSQL's messages,
	// Statements pg_stat_statements' statements, and Log and Status are empty.
	Postgres bool
	Log      map[string]int64 // general_log rows by command_type
	Status   map[string]int64 // SHOW GLOBAL STATUS deltas, the capture's own queries subtracted
	Wire     map[string]int64 // commands counted by a Proxy (WithProxy), else nil
	Queries  []string         // distinct statements of Query/Prepare rows, numbers replaced by ?
	// Bytes each way through the Proxy (WithProxy), the handshakes of new connections
	// included.
	ToServer, ToClient int64
	// Trips is how many times the requests waited for the server, as the Proxy counted
	// (WithProxy; CapturePostgres): their round trips.
	Trips int64
	// Waited is how long the commands waited for the server's answers, summed, as the
	// Proxy timed them (WithProxy): the time the requests held their connections on the
	// database and the wire.
	Waited time.Duration
	// From is the addresses the Proxy's counted commands came from (WithProxy).
	From []string
	// Auth is the new connections by the authentication path they took, and AuthTrips
	// their handshakes' round trips after TCP's (WithProxy; handshake.go).
	Auth      map[string]int64
	AuthTrips int64
	// NotQuiet says the server's counters were still moving quietLimit after the last
	// response: another client was using the server, and Status may count its commands.
	NotQuiet bool
	// Statements is performance_schema's count of the statements other sessions ran, by
	// the command the general log would name (perfschema.go), with the rows they examined
	// and the time the server spent in them; nil, with StatementsOff saying why, where
	// performance_schema is off or may not be switched on.
	Statements    map[string]int64
	RowsExamined  int64
	ServerTime    time.Duration
	StatementsOff string
}

// PerRequest is the general-log counts divided by the number of requests.
func (r *Result) PerRequest() map[string]float64 { return perRequest(r.Log, r.Requests) }

// WirePerRequest is the wire counts divided by the number of requests (nil without a proxy).
func (r *Result) WirePerRequest() map[string]float64 {
	if r.Wire == nil {
		return nil
	}
	return perRequest(r.Wire, r.Requests)
}

// StatementsPerRequest is performance_schema's counts divided by the number of
// requests (nil where it did not count).
func (r *Result) StatementsPerRequest() map[string]float64 {
	if r.Statements == nil {
		return nil
	}
	return perRequest(r.Statements, r.Requests)
}

// AuthPerRequest is the new connections by authentication path divided by the number
// of requests (nil where none was counted).
func (r *Result) AuthPerRequest() map[string]float64 {
	if len(r.Auth) == 0 {
		return nil
	}
	return perRequest(r.Auth, r.Requests)
}

func perRequest(m map[string]int64, n int) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = float64(v) / float64(n)
	}
	return out
}

// Option changes what Capture does.
type Option func(*captureOptions)

type captureOptions struct{ proxy *Proxy }

// WithProxy makes Capture also record p's wire counts (p is reset before do runs).
func WithProxy(p *Proxy) Option { return func(o *captureOptions) { o.proxy = p } }

// Capture waits for earlier commands to land (quiesce), switches the general log on
// (adding TABLE to log_output), notes the server's time, snapshots the status counters,
// and performance_schema's statement events (switching their instruments on where it
// may), calls do (which must send exactly `requests` requests), waits until the server
// is quiet again, snapshots again, puts the log and instrument settings back as they were and reads the
// rows since the noted time of every thread but its own. It never truncates the log
// table: on a shared server, its rows may be someone's. The server's general log and
// counters are global: nothing else should use the server meanwhile.
func Capture(ctx context.Context, admin *sql.DB, requests int, do func(ctx context.Context) error, opts ...Option) (res *Result, err error) {
	if requests < 1 {
		return nil, fmt.Errorf("roundtrip: requests must be at least 1, got %d", requests)
	}
	var o captureOptions
	for _, f := range opts {
		f(&o)
	}
	// One connection for everything, so its own thread id can be left out of the log.
	conn, err := admin.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("roundtrip: admin connection: %w", err)
	}
	defer conn.Close()
	var self int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&self); err != nil {
		return nil, fmt.Errorf("roundtrip: connection id: %w", err)
	}
	// Whatever the caller did just before (a warm-up) may still have commands on the way,
	// such as the Quit of a connection closed after its response: let them land first.
	if _, _, _, err := quiesce(ctx, conn, o.proxy); err != nil {
		return nil, err
	}
	restore, since, err := logOn(ctx, conn)
	if err != nil {
		return nil, err
	}
	// The log settings go back whatever happens, or every later measurement (and the
	// server's owner) pays for them.
	defer func() {
		if rerr := restore(); rerr != nil && err == nil {
			err = rerr
		}
	}()

	psRestore, thread, psOff, err := psOn(ctx, conn)
	if err != nil {
		return nil, err
	}
	if psRestore != nil {
		defer func() {
			if rerr := psRestore(); rerr != nil && err == nil {
				err = rerr
			}
		}()
	}
	// Before the status snapshots, which then do not count it.
	var ps0 psSnapshot
	if psOff == "" {
		if ps0, err = readPS(ctx, conn, thread); err != nil {
			return nil, err
		}
	}
	// Two snapshots back to back measure what a snapshot itself adds to the counters
	// (its own statement and result bytes), which is then subtracted.
	s0, err := status(ctx, conn)
	if err != nil {
		return nil, err
	}
	s1, err := status(ctx, conn)
	if err != nil {
		return nil, err
	}
	if o.proxy != nil {
		o.proxy.Reset()
	}
	if err := do(ctx); err != nil {
		return nil, fmt.Errorf("roundtrip: sending requests: %w", err)
	}
	// s2 is quiesce's last snapshot; each of its reads adds one snapshot's own share.
	s2, reads, quiet, err := quiesce(ctx, conn, o.proxy)
	if err != nil {
		return nil, err
	}
	res = &Result{Requests: requests, Log: map[string]int64{}, Status: map[string]int64{}, NotQuiet: !quiet, StatementsOff: psOff}
	if psOff == "" {
		ps1, err := readPS(ctx, conn, thread)
		if err != nil {
			return nil, err
		}
		res.Statements, res.RowsExamined, res.ServerTime = psDelta(ps0, ps1)
	}
	if o.proxy != nil {
		res.Wire = o.proxy.Counts()
		res.ToServer, res.ToClient = o.proxy.Bytes()
		res.Waited, res.Trips = o.proxy.Waited(), o.proxy.Trips()
		res.From = o.proxy.From()
		res.Auth, res.AuthTrips = o.proxy.Auth()
	}
	for _, k := range StatusVars {
		res.Status[k] = (s2[k] - s1[k]) - int64(reads)*(s1[k]-s0[k])
	}
	if err := restore(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	err = eachPair(ctx, conn, "read general log", func(cmd, arg string) {
		res.Log[cmd]++
		if cmd == "Query" || cmd == "Prepare" {
			q := cmd + ": " + numbers.ReplaceAllString(arg, "?")
			if !seen[q] && len(seen) < 50 {
				seen[q] = true
				res.Queries = append(res.Queries, q)
			}
		}
	}, "SELECT command_type, CAST(argument AS CHAR) FROM mysql.general_log WHERE event_time >= ? AND thread_id <> ?", since, self)
	if err != nil {
		return nil, err
	}
	sort.Strings(res.Queries)
	return res, nil
}

var numbers = regexp.MustCompile(`\b\d+\b`)

// logOn switches the general log on into the log table, keeping whatever else
// log_output named, and returns the server's time from which rows are this capture's,
// with a function that puts general_log and log_output back as they were (once).
func logOn(ctx context.Context, conn *sql.Conn) (restore func() error, since string, err error) {
	var wasOn int
	var output string
	if err := conn.QueryRowContext(ctx, "SELECT @@GLOBAL.general_log, @@GLOBAL.log_output").Scan(&wasOn, &output); err != nil {
		return nil, "", fmt.Errorf("roundtrip: read the general log settings: %w", err)
	}
	want := output
	switch {
	case strings.Contains(output, "TABLE"):
	case output == "" || output == "NONE":
		want = "TABLE"
	default:
		want = output + ",TABLE"
	}
	done := false
	restore = func() error {
		if done {
			return nil
		}
		done = true
		bg := context.WithoutCancel(ctx)
		if _, err := conn.ExecContext(bg, "SET GLOBAL general_log = ?", wasOn); err != nil {
			return fmt.Errorf("roundtrip: put general_log back to %d: %w", wasOn, err)
		}
		if _, err := conn.ExecContext(bg, "SET GLOBAL log_output = ?", output); err != nil {
			return fmt.Errorf("roundtrip: put log_output back to %s: %w", output, err)
		}
		return nil
	}
	for _, q := range []string{"SET GLOBAL log_output = '" + want + "'", "SET GLOBAL general_log = 1"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			restore()
			return nil, "", fmt.Errorf("roundtrip: %s: %w (the user needs the SUPER privilege)", q, err)
		}
	}
	if err := conn.QueryRowContext(ctx, "SELECT NOW(6)").Scan(&since); err != nil {
		restore()
		return nil, "", fmt.Errorf("roundtrip: server time: %w", err)
	}
	return restore, since, nil
}

// quiesce polls the server's counters (and the proxy's, which sees a command before the
// server does) until none has moved for Settle, or quietLimit has passed (quiet false).
// It returns its last snapshot and how many it read.
func quiesce(ctx context.Context, conn *sql.Conn, proxy *Proxy) (last map[string]int64, reads int, quiet bool, err error) {
	reads, quiet, err = waitStill(ctx, func() (string, error) {
		s, err := status(ctx, conn)
		if err != nil {
			return "", err
		}
		last = s
		var b strings.Builder
		for _, k := range quietVars {
			fmt.Fprintf(&b, "%d,", s[k])
		}
		if proxy != nil {
			fmt.Fprint(&b, proxy.Counts())
		}
		return b.String(), nil
	})
	if err != nil {
		return nil, reads, false, err
	}
	return last, reads, quiet, nil
}

// waitStill reads fingerprint every 50 ms until it has not changed for Settle (quiet)
// or quietLimit has passed (not quiet), and says how many readings it took.
func waitStill(ctx context.Context, fingerprint func() (string, error)) (reads int, quiet bool, err error) {
	const poll = 50 * time.Millisecond
	var seen string
	start := time.Now()
	changed := start
	for {
		f, err := fingerprint()
		if err != nil {
			return reads, false, err
		}
		reads++
		now := time.Now()
		if f != seen {
			seen, changed = f, now
		}
		switch {
		case now.Sub(changed) >= Settle:
			return reads, true, nil
		case now.Sub(start) >= quietLimit:
			return reads, false, nil
		}
		select {
		case <-time.After(poll):
		case <-ctx.Done():
			return reads, false, ctx.Err()
		}
	}
}

// status reads the server's numeric status variables.
func status(ctx context.Context, conn *sql.Conn) (map[string]int64, error) {
	out := map[string]int64{}
	err := eachPair(ctx, conn, "show global status", func(k, v string) {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			out[k] = n
		}
	}, "SHOW GLOBAL STATUS")
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachPair runs query with args and hands each row's two columns, as text, to each;
// an error says what was being read.
func eachPair(ctx context.Context, conn *sql.Conn, what string, each func(a, b string), query string, args ...any) error {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("roundtrip: %s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			return fmt.Errorf("roundtrip: %s: %w", what, err)
		}
		each(a, b)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("roundtrip: %s: %w", what, err)
	}
	return nil
}
