package roundtrip

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
)

// CapturePostgres is Capture on PostgreSQL: the frontend messages on the wire, through
// proxy (reset before do runs), which matrix.yaml's expectations count; and the server's
// own count of the statements it ran, by their first word (SELECT, BEGIN, …), from
// pg_stat_statements where the extension is there (the embedded server loads it), else
// StatementsOff says why. do must send exactly requests requests. The server's
// statistics are global: nothing else should use the server meanwhile.
func CapturePostgres(ctx context.Context, admin *sql.DB, requests int, do func(ctx context.Context) error, proxy *Proxy) (*Result, error) {
	if requests < 1 {
		return nil, fmt.Errorf("roundtrip: requests must be at least 1, got %d", requests)
	}
	if proxy == nil {
		return nil, fmt.Errorf("roundtrip: PostgreSQL's count needs the counting proxy")
	}
	quietWire(ctx, proxy) // a warm-up's last messages land first
	before, off := pgStatements(ctx, admin)
	proxy.Reset()
	if err := do(ctx); err != nil {
		return nil, fmt.Errorf("roundtrip: sending requests: %w", err)
	}
	quiet := quietWire(ctx, proxy)
	res := &Result{Requests: requests, Postgres: true, Log: map[string]int64{}, Status: map[string]int64{}, NotQuiet: !quiet, StatementsOff: off}
	res.Wire = proxy.Counts()
	res.ToServer, res.ToClient = proxy.Bytes()
	res.Waited, res.Trips = proxy.Waited(), proxy.Trips()
	res.From = proxy.From()
	if off == "" {
		after, off := pgStatements(ctx, admin)
		if off != "" {
			res.StatementsOff = off
			return res, nil
		}
		res.Statements = map[string]int64{}
		for q, n := range after {
			if d := n - before[q]; d > 0 {
				res.Statements[firstWord(q)] += d
				res.Queries = append(res.Queries, q)
			}
		}
		sort.Strings(res.Queries)
	}
	return res, nil
}

// quietWire waits until the proxy's counts have not moved for Settle (or quietLimit
// has passed: false): a per-request connection's Terminate follows its response.
func quietWire(ctx context.Context, p *Proxy) bool {
	_, quiet, _ := waitStill(ctx, func() (string, error) { return fmt.Sprint(p.Counts()), nil })
	return quiet
}

// pgStatements reads pg_stat_statements' calls by statement, leaving out the reads of
// the statistics themselves; off says why there are none (the extension missing).
func pgStatements(ctx context.Context, admin *sql.DB) (calls map[string]int64, off string) {
	rows, err := admin.QueryContext(ctx, "SELECT query, calls FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'")
	if err != nil {
		return nil, "pg_stat_statements is not there (shared_preload_libraries and CREATE EXTENSION): " + err.Error()
	}
	defer rows.Close()
	calls = map[string]int64{}
	for rows.Next() {
		var q string
		var n int64
		if err := rows.Scan(&q, &n); err != nil {
			return nil, "pg_stat_statements: " + err.Error()
		}
		calls[q] += n
	}
	if err := rows.Err(); err != nil {
		return nil, "pg_stat_statements: " + err.Error()
	}
	return calls, ""
}

// firstWord is a statement's kind as a person names it: SELECT, INSERT, BEGIN.
func firstWord(q string) string {
	f := strings.Fields(q)
	if len(f) == 0 {
		return "?"
	}
	return strings.ToUpper(f[0])
}
