package soak

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"strconv"
)

// Connections and statements that no target holds.
//
// The server's global counts (Threads_connected, Prepared_stmt_count) hold every
// target's connections and statements, which rise and fall with the requests in
// flight: an outside client's slow leak is lost in that noise over a few minutes (the
// repository's README.md, "Calibrated on both sides"). What no target explains has none
// of it. Each round lists the server's connections twice, at its start and at its end;
// a connection in both lived across the round (a per-request one, which lives for one
// request, seldom does). Of those, the ones whose client port is one of a target's
// sockets are the target's; the runner's own is left out by the query. The rest are
// outside: another client, a cron job, a leak in something the soak does not run. Their
// prepared statements come from performance_schema, on in the embedded server a soak
// starts and, on a dsn server, only if it is on there.

// dbConn is one client connection the server lists.
type dbConn struct {
	port  int // client port; 0 for a Unix socket
	stmts int // prepared statements it holds (performance_schema; 0 when not read)
}

// connsQuery lists the client connections (system threads have no host), less the
// runner's own; stmtsQuery adds each one's prepared statements from performance_schema.
const (
	connsQuery = `SELECT ID, HOST, 0 FROM information_schema.PROCESSLIST
WHERE ID <> CONNECTION_ID() AND HOST <> ''`
	stmtsQuery = `SELECT p.ID, p.HOST, COUNT(s.OWNER_THREAD_ID)
FROM information_schema.PROCESSLIST p
LEFT JOIN performance_schema.threads t ON t.PROCESSLIST_ID = p.ID
LEFT JOIN performance_schema.prepared_statements_instances s ON s.OWNER_THREAD_ID = t.THREAD_ID
WHERE p.ID <> CONNECTION_ID() AND p.HOST <> ''
GROUP BY p.ID, p.HOST`
)

// dbConnections reads the server's client connections by id, with their prepared
// statements when withStmts (performance_schema must be on).
func dbConnections(ctx context.Context, db *sql.DB, withStmts bool) (map[int64]dbConn, error) {
	q := connsQuery
	if withStmts {
		q = stmtsQuery
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("soak: list the database's connections: %w", err)
	}
	defer rows.Close()
	out := map[int64]dbConn{}
	for rows.Next() {
		var id int64
		var host string
		var c dbConn
		if err := rows.Scan(&id, &host, &c.stmts); err != nil {
			return nil, fmt.Errorf("soak: list the database's connections: %w", err)
		}
		c.port = clientPort(host)
		out[id] = c
	}
	return out, rows.Err()
}

// clientPort is the port of a processlist HOST ("127.0.0.1:54321"), 0 for "localhost".
func clientPort(host string) int {
	_, p, err := net.SplitHostPort(host)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(p)
	return n
}

// instrumented says whether the server traces statements to their connections and
// lets this user read them: performance_schema on, and the query that joins them works.
func instrumented(ctx context.Context, db *sql.DB) bool {
	var on bool
	if err := db.QueryRowContext(ctx, "SELECT @@performance_schema").Scan(&on); err != nil || !on {
		return false
	}
	_, err := dbConnections(ctx, db, true)
	return err == nil
}

// outside counts the connections listed both before and after a round whose client
// port is no target's, and their prepared statements (as read before).
func outside(before, after map[int64]dbConn, targets map[int]bool) (conns, stmts int) {
	for id, c := range before {
		if _, still := after[id]; !still || (c.port != 0 && targets[c.port]) {
			continue
		}
		conns++
		stmts += c.stmts
	}
	return conns, stmts
}

// seesPorts says whether the server's list shows the targets' client ports: with a
// proxy or NAT between them (docker-proxy, ProxySQL) it shows the proxy's, and every
// target connection would read as outside. No target connection at all tells nothing.
func seesPorts(conns map[int64]dbConn, targets map[int]bool) bool {
	if len(targets) == 0 {
		return true
	}
	for _, c := range conns {
		if targets[c.port] {
			return true
		}
	}
	return false
}
