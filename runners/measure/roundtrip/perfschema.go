package roundtrip

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The server's own count, the fourth: performance_schema's statement events by event
// name (events_statements_summary_global_by_event_name), with the rows each examined
// and the time the server spent in it. A prepared statement's executions have no
// digest on either server (measured on MariaDB 10.11 and MySQL 8.0.31: they count as
// statement/com/Execute and never reach events_statements_summary_by_digest), so the
// event name, not the digest, is what covers both protocols.

// psEvent is one event name's totals.
type psEvent struct{ count, rows, timerPs int64 }

// psOn switches performance_schema's statement instruments (timed) and the consumers
// that aggregate them on, and returns a function that puts every setting back, and the
// capture connection's own thread, whose statements are subtracted. off says why
// there is no fourth count (performance_schema off, or not allowed to switch it on);
// that is not an error.
func psOn(ctx context.Context, conn *sql.Conn) (restore func() error, thread int64, off string, err error) {
	var on int
	if err := conn.QueryRowContext(ctx, "SELECT @@GLOBAL.performance_schema").Scan(&on); err != nil {
		return nil, 0, "", fmt.Errorf("roundtrip: read @@performance_schema: %w", err)
	}
	if on == 0 {
		return nil, 0, "performance_schema is off on this server", nil
	}
	var settings [][3]string // name, enabled, timed; timed "" for a consumer
	add := func(a, b string) { settings = append(settings, [3]string{a, b, ""}) }
	err = eachPair(ctx, conn, "read performance_schema's consumers", add,
		"SELECT NAME, ENABLED FROM performance_schema.setup_consumers WHERE NAME IN ('global_instrumentation', 'thread_instrumentation')")
	if err != nil {
		return nil, 0, "", err
	}
	consumers := len(settings)
	rows, err := conn.QueryContext(ctx, "SELECT NAME, ENABLED, COALESCE(TIMED, 'NO') FROM performance_schema.setup_instruments WHERE NAME LIKE 'statement/%'")
	if err != nil {
		return nil, 0, "", fmt.Errorf("roundtrip: read performance_schema's instruments: %w", err)
	}
	for rows.Next() {
		var s [3]string
		if err := rows.Scan(&s[0], &s[1], &s[2]); err != nil {
			rows.Close()
			return nil, 0, "", fmt.Errorf("roundtrip: read performance_schema's instruments: %w", err)
		}
		settings = append(settings, s)
	}
	rows.Close()
	restore = func() error {
		bg := context.WithoutCancel(ctx)
		for _, s := range settings[:consumers] {
			if _, err := conn.ExecContext(bg, "UPDATE performance_schema.setup_consumers SET ENABLED = ? WHERE NAME = ?", s[1], s[0]); err != nil {
				return fmt.Errorf("roundtrip: put performance_schema's %s back: %w", s[0], err)
			}
		}
		// One UPDATE per pair of settings the instruments had, not one per instrument.
		names := map[[2]string][]any{}
		for _, s := range settings[consumers:] {
			if k := [2]string{s[1], s[2]}; k != [2]string{"YES", "YES"} {
				names[k] = append(names[k], s[0])
			}
		}
		for k, in := range names {
			q := "UPDATE performance_schema.setup_instruments SET ENABLED = ?, TIMED = ? WHERE NAME IN (?" + strings.Repeat(", ?", len(in)-1) + ")"
			if _, err := conn.ExecContext(bg, q, append([]any{k[0], k[1]}, in...)...); err != nil {
				return fmt.Errorf("roundtrip: put performance_schema's statement instruments back: %w", err)
			}
		}
		return nil
	}
	for _, q := range []string{
		"UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES' WHERE NAME LIKE 'statement/%'",
		"UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME IN ('global_instrumentation', 'thread_instrumentation')",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			if rerr := restore(); rerr != nil {
				return nil, 0, "", rerr
			}
			return nil, 0, "performance_schema's statement instruments could not be switched on: " + err.Error(), nil
		}
	}
	var instrumented string
	err = conn.QueryRowContext(ctx, "SELECT THREAD_ID, INSTRUMENTED FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID()").Scan(&thread, &instrumented)
	if err != nil || instrumented != "YES" {
		if rerr := restore(); rerr != nil {
			return nil, 0, "", rerr
		}
		return nil, 0, fmt.Sprintf("performance_schema does not instrument the capture's own session (instrumented %q, %v)", instrumented, err), nil
	}
	// The capture's own reads are then left out of the server's totals altogether. Their
	// subtraction (psDelta) alone is off by the two global reads' difference in time,
	// which two busy cores made 5 ms once, more than 20 requests' server time; where the
	// server refuses, the subtraction stands alone.
	q := fmt.Sprintf("UPDATE performance_schema.threads SET INSTRUMENTED = 'NO' WHERE THREAD_ID = %d", thread)
	if _, err := conn.ExecContext(ctx, q); err == nil {
		putBack := restore
		restore = func() error {
			q := fmt.Sprintf("UPDATE performance_schema.threads SET INSTRUMENTED = 'YES' WHERE THREAD_ID = %d", thread)
			_, err := conn.ExecContext(context.WithoutCancel(ctx), q)
			return errors.Join(err, putBack())
		}
	}
	return restore, thread, "", nil
}

// psEvents reads the statement events' totals of the whole server, or of one thread.
func psEvents(ctx context.Context, conn *sql.Conn, thread int64) (map[string]psEvent, error) {
	q := "SELECT EVENT_NAME, COUNT_STAR, SUM_ROWS_EXAMINED, SUM_TIMER_WAIT FROM performance_schema.events_statements_summary_global_by_event_name WHERE COUNT_STAR > 0"
	if thread != 0 {
		// The id written in, not a parameter, so the read is one text query whose
		// Com_ counters Capture's status snapshots can leave out.
		q = fmt.Sprintf("SELECT EVENT_NAME, COUNT_STAR, SUM_ROWS_EXAMINED, SUM_TIMER_WAIT FROM performance_schema.events_statements_summary_by_thread_by_event_name WHERE THREAD_ID = %d AND COUNT_STAR > 0", thread)
	}
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("roundtrip: read performance_schema's statement events: %w", err)
	}
	defer rows.Close()
	out := map[string]psEvent{}
	for rows.Next() {
		var name, count, examined, timer string
		if err := rows.Scan(&name, &count, &examined, &timer); err != nil {
			return nil, fmt.Errorf("roundtrip: read performance_schema's statement events: %w", err)
		}
		var e psEvent
		e.count, _ = strconv.ParseInt(count, 10, 64)
		e.rows, _ = strconv.ParseInt(examined, 10, 64)
		e.timerPs, _ = strconv.ParseInt(timer, 10, 64)
		out[name] = e
	}
	return out, rows.Err()
}

// psSnapshot is the server's totals and the capture session's own, read in that order.
type psSnapshot struct{ all, own map[string]psEvent }

func readPS(ctx context.Context, conn *sql.Conn, thread int64) (s psSnapshot, err error) {
	if s.all, err = psEvents(ctx, conn, 0); err != nil {
		return s, err
	}
	s.own, err = psEvents(ctx, conn, thread)
	return s, err
}

// psDelta is what other sessions ran between two snapshots: the server's totals moved
// less the capture session's own. Read in the order server, session, the difference is
// exact in counts and rows (the first snapshot's server read, counted in the server's
// delta only, and the second's, counted in the session's only, are the same statement
// scanning the same table); in time it is off by the two reads' difference, a few
// microseconds in all.
func psDelta(a, b psSnapshot) (commands map[string]int64, rows int64, server time.Duration) {
	commands = map[string]int64{}
	var timer int64
	for name, e := range b.all {
		d := psEvent{e.count - a.all[name].count, e.rows - a.all[name].rows, e.timerPs - a.all[name].timerPs}
		own := b.own[name]
		was := a.own[name]
		d.count -= own.count - was.count
		d.rows -= own.rows - was.rows
		d.timerPs -= own.timerPs - was.timerPs
		if d.count != 0 {
			commands[CommandOf(name)] += d.count
		}
		rows += d.rows
		timer += d.timerPs
	}
	return commands, rows, time.Duration(timer / 1000)
}

// CommandOf names a statement event as the general log names its command: a client
// command keeps its name ("statement/com/Close stmt" is "Close stmt"), a text
// statement, which the server names by its kind once parsed ("statement/sql/select"),
// is a Query.
func CommandOf(event string) string {
	switch {
	case strings.HasPrefix(event, "statement/sql/"):
		return "Query"
	case strings.HasPrefix(event, "statement/com/"):
		return strings.TrimPrefix(event, "statement/com/")
	}
	return event
}
