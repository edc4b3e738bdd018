package servers

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"dbbench/runners/measure/procstat"
	"dbbench/runners/measure/roundtrip"
)

// postgres is PostgreSQL: pg_stat_activity for its client backends and their
// transactions, pg_stat_database for sessions that ended badly, and /proc for each
// backend's memory (a process per connection) when the server runs on this host.
//
// PostgreSQL has no server-wide count of prepared statements: pg_prepared_statements
// lists the asking session's own. A client that keeps preparing shows instead as its
// backend's private memory growing (each statement keeps its parse tree and plan in
// the backend's memory contexts), which Clients reads when it can.
type postgres struct{}

func (postgres) Limits(ctx context.Context, db *sql.DB) (Limits, error) {
	var l Limits
	err := db.QueryRowContext(ctx, "SELECT current_setting('max_connections')::float8").Scan(&l.Connections)
	if err != nil {
		return l, fmt.Errorf("read max_connections: %w", err)
	}
	return l, nil
}

// pgStatus reads, from pg_stat_activity, the client backends, those idle inside a
// transaction (a client that began one and went away from it: it holds its snapshot
// and locks, and VACUUM cannot pass it), and the age of the oldest open transaction
// other than the asker's; from pg_stat_database, sessions that ended without a
// Terminate message (abandoned) or by an error or a kill.
const pgStatus = `SELECT
  (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'),
  (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND state LIKE 'idle in transaction%'),
  (SELECT coalesce(extract(epoch FROM max(now() - xact_start)), 0)::float8 FROM pg_stat_activity
    WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()),
  (SELECT coalesce(sum(sessions_abandoned), 0)::float8 FROM pg_stat_database),
  (SELECT coalesce(sum(sessions_fatal + sessions_killed), 0)::float8 FROM pg_stat_database)`

// Counts: the benchmark database's sessions (pg_stat_database, PostgreSQL 14 and
// later), every backend started for it; PostgreSQL keeps no count of Parse messages.
func (postgres) Counts(ctx context.Context, db *sql.DB) (Counts, error) {
	var c Counts
	err := db.QueryRowContext(ctx, "SELECT sessions FROM pg_stat_database WHERE datname = current_database()").Scan(&c.Connections)
	if err != nil {
		return Counts{}, fmt.Errorf("read pg_stat_database: %w", err)
	}
	return c, nil
}

func (postgres) Status(ctx context.Context, db *sql.DB, lim Limits) ([]Reading, error) {
	var conns, idleTx, oldest, abandoned, failed float64
	if err := db.QueryRowContext(ctx, pgStatus).Scan(&conns, &idleTx, &oldest, &abandoned, &failed); err != nil {
		return nil, fmt.Errorf("read pg_stat_activity and pg_stat_database: %w", err)
	}
	return []Reading{
		{Name: "connections", Label: "client backends (pg_stat_activity)", Unit: "count", Value: conns,
			Limit: "max_connections", LimitValue: lim.Connections, Held: true},
		{Name: "idle_in_transaction", Label: "connections idle in transaction (pg_stat_activity)", Unit: "count",
			Value: idleTx, Held: true},
		{Name: "oldest_transaction", Label: "age of the oldest open transaction (pg_stat_activity)", Unit: "s",
			Value: oldest, Level: true},
		{Name: "sessions_abandoned", Label: "sessions_abandoned (pg_stat_database)", Unit: "count", Value: abandoned},
		{Name: "sessions_failed", Label: "sessions_fatal + sessions_killed (pg_stat_database)", Unit: "count", Value: failed},
	}, nil
}

// pgClients lists the client backends, less the asker's, by backend pid; client_port
// is -1 on a Unix socket.
const pgClients = `SELECT pid, greatest(coalesce(client_port, 0), 0) FROM pg_stat_activity
WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`

func (postgres) Clients(ctx context.Context, db *sql.DB, traced Traced) (map[int64]Client, error) {
	rows, err := db.QueryContext(ctx, pgClients)
	if err != nil {
		return nil, fmt.Errorf("list the database's connections: %w", err)
	}
	defer rows.Close()
	out := map[int64]Client{}
	for rows.Next() {
		var pid int64
		var c Client
		if err := rows.Scan(&pid, &c.Port); err != nil {
			return nil, fmt.Errorf("list the database's connections: %w", err)
		}
		if traced.Memory {
			c.Memory, _ = backendMemory(int(pid)) // a backend that ended meanwhile holds nothing
		}
		out[pid] = c
	}
	return out, rows.Err()
}

// Traces: each backend's memory when the asker's own backend is a postgres process of
// this host (a server elsewhere has other pids); never each one's statements.
func (postgres) Traces(ctx context.Context, db *sql.DB) Traced {
	var pid int
	if err := db.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		return Traced{}
	}
	_, err := backendMemory(pid)
	return Traced{Memory: err == nil}
}

// backendMemory is a backend's private memory (procstat.AnonRSS): its shared buffers
// (RssShmem) rise as it touches pages and are not its own. A pid that is no postgres
// process of this host is an error.
func backendMemory(pid int) (int64, error) {
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return 0, err
	}
	if name := strings.TrimSpace(string(comm)); name != "postgres" {
		return 0, fmt.Errorf("process %d is %q, not a postgres backend of this host", pid, name)
	}
	return procstat.AnonRSS(pid)
}

// Processes: the postmaster and every backend and worker it forked.
func (postgres) Processes(pid int) []int {
	pids, err := procstat.Tree(pid)
	if err != nil {
		return []int{pid}
	}
	return pids
}

func (postgres) Untraced(t Traced) string {
	if t.Memory {
		return "PostgreSQL lists a session's prepared statements to that session only (pg_prepared_statements):\n" +
			"statements no target holds show as the private memory of their backend (outside_memory)"
	}
	return "PostgreSQL lists a session's prepared statements to that session only, and this server's\n" +
		"backends are not on this host: statements no target holds are not seen"
}

// Light: the CPU of the postmaster and every backend, each a process of its own and
// each the postmaster's child (procstat.TakeCPUFamily). Read at every turn of a block,
// with a thousand backends or so (16 targets × 64 connections): for a parent of 960
// children on this machine, the whole tree with its io files took 41 ms a reading, this
// 14 ms. The database's system calls
// are not read: results keep none (results.Variant.Counted).
func (postgres) Light(pid int) (procstat.Light, error) {
	cpu, err := procstat.TakeCPUFamily(pid)
	return procstat.Light{CPU: cpu}, err
}

// Running: the active backends, the asker's own left out.
func (postgres) Running(ctx context.Context, db *sql.DB) (int64, bool) {
	var v int64
	if db.QueryRowContext(ctx, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active'").Scan(&v) != nil {
		return 0, false
	}
	return v - 1, true
}

// Durability: with fsync and synchronous_commit on, a commit is answered once its WAL
// is flushed; synchronous_commit off answers before, and a killed server loses what was
// not yet flushed (up to three times wal_writer_delay).
func (postgres) Durability(ctx context.Context, db *sql.DB) (string, bool, error) {
	var fsync, syncCommit string
	if err := db.QueryRowContext(ctx, "SELECT current_setting('fsync'), current_setting('synchronous_commit')").Scan(&fsync, &syncCommit); err != nil {
		return "", false, fmt.Errorf("read fsync and synchronous_commit: %w", err)
	}
	text := fmt.Sprintf("fsync=%s, synchronous_commit=%s", fsync, syncCommit)
	if fsync == "on" && syncCommit != "off" {
		return text + ": the WAL is flushed before a commit is answered", true, nil
	}
	return text + ": a commit can be answered before its WAL is flushed: a killed server can lose acknowledged commits", false, nil
}

// Probe: pgx's Ping, an empty query.
func (postgres) Probe() string { return "empty query" }

func (postgres) Ping(ctx context.Context, line string, dial Dial) (func() error, func(), error) {
	cc, err := pgx.ParseConfig(line)
	if err != nil {
		return nil, nil, err
	}
	if dial != nil {
		cc.DialFunc = dial
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, nil, err
	}
	return func() error { return conn.Ping(ctx) }, func() { conn.Close(ctx) }, nil
}

// Capture counts the frontend messages on the wire: PostgreSQL keeps no log of them.
func (postgres) Capture(ctx context.Context, admin *sql.DB, requests int, do func(ctx context.Context) error, proxy *roundtrip.Proxy) (*roundtrip.Result, error) {
	return roundtrip.CapturePostgres(ctx, admin, requests, do, proxy)
}

func (postgres) CountingProxy(host, upstream string) (*roundtrip.Proxy, error) {
	return roundtrip.StartPostgresProxyOn(host, upstream)
}
