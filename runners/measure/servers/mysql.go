package servers

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"strconv"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"

	"dbbench/runners/measure/procstat"
	"dbbench/runners/measure/roundtrip"
)

// mysql is MariaDB and MySQL: SHOW GLOBAL STATUS, information_schema.PROCESSLIST, and
// performance_schema for each connection's prepared statements.
type mysql struct{}

// mysqlStatus are the SHOW GLOBAL STATUS counters read, in the order they are shown.
var mysqlStatus = []string{"Threads_connected", "Prepared_stmt_count", "Com_stmt_prepare", "Com_stmt_close",
	"Aborted_connects", "Aborted_clients"}

func (mysql) Limits(ctx context.Context, db *sql.DB) (Limits, error) {
	l := Limits{StatementsName: "max_prepared_stmt_count"}
	err := db.QueryRowContext(ctx, "SELECT @@max_connections, @@max_prepared_stmt_count").Scan(&l.Connections, &l.Statements)
	if err != nil {
		return l, fmt.Errorf("read max_connections and max_prepared_stmt_count: %w", err)
	}
	return l, nil
}

// Counts: Connections (every connection attempt, a failed one too) and
// Com_stmt_prepare.
func (mysql) Counts(ctx context.Context, db *sql.DB) (Counts, error) {
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Connections', 'Com_stmt_prepare')")
	if err != nil {
		return Counts{}, fmt.Errorf("read server counts: %w", err)
	}
	defer rows.Close()
	c := Counts{PreparesOK: true}
	for rows.Next() {
		var name string
		var v int64
		if err := rows.Scan(&name, &v); err != nil {
			return Counts{}, fmt.Errorf("read server counts: %w", err)
		}
		switch name {
		case "Connections":
			c.Connections = v
		case "Com_stmt_prepare":
			c.Prepares = v
		}
	}
	return c, rows.Err()
}

func (mysql) Status(ctx context.Context, db *sql.DB, lim Limits) ([]Reading, error) {
	q := "SHOW GLOBAL STATUS WHERE Variable_name IN ('" + strings.Join(mysqlStatus, "','") + "')"
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read server status: %w", err)
	}
	defer rows.Close()
	st := map[string]float64{}
	for rows.Next() {
		var name string
		var v float64
		if err := rows.Scan(&name, &v); err != nil {
			return nil, fmt.Errorf("read server status: %w", err)
		}
		st[name] = v
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read server status: %w", err)
	}
	stmts := func(r Reading) Reading {
		r.Limit, r.LimitValue, r.Held = lim.StatementsName, lim.Statements, true
		return r
	}
	return []Reading{
		{Name: "threads_connected", Label: "Threads_connected", Unit: "count", Value: st["Threads_connected"],
			Limit: "max_connections", LimitValue: lim.Connections, Held: true},
		stmts(Reading{Name: "prepared_stmt_count", Label: "Prepared_stmt_count", Unit: "count", Value: st["Prepared_stmt_count"]}),
		stmts(Reading{Name: "stmt_open", Label: "Com_stmt_prepare − Com_stmt_close", Unit: "count",
			Value: st["Com_stmt_prepare"] - st["Com_stmt_close"]}),
		{Name: "aborted_connects", Label: "Aborted_connects", Unit: "count", Value: st["Aborted_connects"]},
		{Name: "aborted_clients", Label: "Aborted_clients", Unit: "count", Value: st["Aborted_clients"]},
	}, nil
}

// mysqlClients lists the client connections (system threads have no host), less the
// asker's own; mysqlClientStmts adds each one's prepared statements.
const (
	mysqlClients = `SELECT ID, HOST, 0 FROM information_schema.PROCESSLIST
WHERE ID <> CONNECTION_ID() AND HOST <> ''`
	mysqlClientStmts = `SELECT p.ID, p.HOST, COUNT(s.OWNER_THREAD_ID)
FROM information_schema.PROCESSLIST p
LEFT JOIN performance_schema.threads t ON t.PROCESSLIST_ID = p.ID
LEFT JOIN performance_schema.prepared_statements_instances s ON s.OWNER_THREAD_ID = t.THREAD_ID
WHERE p.ID <> CONNECTION_ID() AND p.HOST <> ''
GROUP BY p.ID, p.HOST`
)

func (mysql) Clients(ctx context.Context, db *sql.DB, traced Traced) (map[int64]Client, error) {
	q := mysqlClients
	if traced.Statements {
		q = mysqlClientStmts
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("list the database's connections: %w", err)
	}
	defer rows.Close()
	out := map[int64]Client{}
	for rows.Next() {
		var id int64
		var host string
		var c Client
		if err := rows.Scan(&id, &host, &c.Stmts); err != nil {
			return nil, fmt.Errorf("list the database's connections: %w", err)
		}
		c.Port = hostPort(host)
		out[id] = c
	}
	return out, rows.Err()
}

// hostPort is the port of a processlist HOST ("127.0.0.1:54321"), 0 for "localhost".
func hostPort(host string) int {
	_, p, err := net.SplitHostPort(host)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(p)
	return n
}

// Traces: performance_schema on, and the query that joins it works for this user.
// Memory per connection is not read: mysqld's threads share one process.
func (m mysql) Traces(ctx context.Context, db *sql.DB) Traced {
	var on bool
	if err := db.QueryRowContext(ctx, "SELECT @@performance_schema").Scan(&on); err != nil || !on {
		return Traced{}
	}
	_, err := m.Clients(ctx, db, Traced{Statements: true})
	return Traced{Statements: err == nil}
}

func (mysql) Processes(pid int) []int { return []int{pid} }

func (mysql) Untraced(t Traced) string {
	if t.Statements {
		return ""
	}
	return "performance_schema is off on this server, or this user cannot read it: statements no target\n" +
		"holds are not told apart from the targets' (Prepared_stmt_count counts both)"
}

func (mysql) Light(pid int) (procstat.Light, error) { return procstat.TakeLight(pid) }

// Running: Threads_running, the asker's own statement left out.
func (mysql) Running(ctx context.Context, db *sql.DB) (int64, bool) {
	var name string
	var v int64
	if db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Threads_running'").Scan(&name, &v) != nil {
		return 0, false
	}
	return v - 1, true
}

// Durability: innodb_flush_log_at_trx_commit 1 writes and flushes the log at every
// commit, 2 writes it (the OS keeps it when the server dies; a crashed machine loses up
// to a second), 0 writes it once a second (a killed server loses up to a second).
func (mysql) Durability(ctx context.Context, db *sql.DB) (string, bool, error) {
	var flush int
	if err := db.QueryRowContext(ctx, "SELECT @@innodb_flush_log_at_trx_commit").Scan(&flush); err != nil {
		return "", false, fmt.Errorf("read innodb_flush_log_at_trx_commit: %w", err)
	}
	text := fmt.Sprintf("innodb_flush_log_at_trx_commit=%d", flush)
	switch flush {
	case 1:
		return text + ": the log is written and flushed before a commit is answered", true, nil
	case 2:
		return text + ": the log is written before a commit is answered, flushed once a second: a killed server loses nothing, a crashed machine up to a second", true, nil
	}
	return text + ": the log is written once a second: a killed server can lose up to a second of acknowledged commits; set it to 1", false, nil
}

func (mysql) Probe() string { return "COM_PING" }

func (mysql) Ping(ctx context.Context, line string, dial Dial) (func() error, func(), error) {
	cfg, err := gomysql.ParseDSN(line)
	if err != nil {
		return nil, nil, err
	}
	if dial != nil {
		cfg.DialFunc = dial
	}
	c, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, nil, err
	}
	db := sql.OpenDB(c)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return func() error { return conn.PingContext(ctx) }, func() { conn.Close(); db.Close() }, nil
}

// Capture reads the general log and the status counters around the requests, and the
// proxy's count of the wire.
func (mysql) Capture(ctx context.Context, admin *sql.DB, requests int, do func(ctx context.Context) error, proxy *roundtrip.Proxy) (*roundtrip.Result, error) {
	return roundtrip.Capture(ctx, admin, requests, do, roundtrip.WithProxy(proxy))
}

func (mysql) CountingProxy(host, upstream string) (*roundtrip.Proxy, error) {
	return roundtrip.StartProxyOn(host, upstream)
}
