// Package provider brings up the database a run measures against: a private embedded
// server (MariaDB by default, MySQL 8.0 or PostgreSQL, with PgBouncer in front where
// asked), an existing server named by a DSN, or MySQL or PostgreSQL in a container.
// Whatever the kind, the caller gets a *DB whose Close undoes what Start did.
package provider

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"dbbench/dsn/protocol"
	"dbbench/fixtures"
	"dbbench/schema"
)

// Kinds lists the providers Start knows, in the order the CLI shows them.
var Kinds = []string{"embedded", "dsn", "testcontainers"}

// Options say which database to bring up and what the run will ask of it.
type Options struct {
	Kind string // one of Kinds; "" means embedded
	// Server is the embedded server: one of Servers, "" the default (mariadb).
	Server string
	// MySQLDir is where make deps unpacks MySQL (the repository's bin/mysql).
	MySQLDir string
	DSN      string // for Kind "dsn": go-sql-driver format user:pass@tcp(host:port)/db
	// MaxConnections is what the run needs at most at once (all pools plus the runner's
	// own). The embedded server is started with it; a dsn server must allow it.
	MaxConnections int
	Rows           int       // fixture rows to load; 0 means fixtures.DefaultRows
	Log            io.Writer // progress lines; nil means os.Stderr
	// ReplaceTable names a table the user allows to be replaced although it is not
	// dbbench's (--replace-table users); "" leaves any such table alone and refuses.
	ReplaceTable string
	// Place runs the embedded server elsewhere than on this host's 127.0.0.1: in a
	// network namespace of its own (runners/measure/topology's db role). nil: here.
	Place Place
	// OrdersPerUser gives each fixture user that many orders (fixtures.LoadOrders), for
	// a run whose ops read related rows; 0 loads no orders table.
	OrdersPerUser int
	// Clients are host patterns (10.77.3.%) the benchmark user of an embedded server
	// may connect from besides this host's loopback: the other roles' addresses.
	Clients []string
	// Instruments starts an embedded server with performance_schema on, so that a
	// prepared statement can be traced to its connection (a soak's statements that no
	// target holds). Off for runs: it costs the server CPU on every statement.
	Instruments bool
	// PerfSchema starts an embedded server that ships with performance_schema off
	// (MariaDB) with it on and every instrument off, so that the round-trip count can
	// switch the statement instruments on for its fourth count. Even idle it costs
	// MariaDB CPU on every statement (README, "MySQL 8.0 beside MariaDB"), so runs leave
	// it off unless asked (--perf-schema). MySQL ships with it on.
	PerfSchema bool
	// Pooler puts a transaction pooler between the targets and an embedded PostgreSQL:
	// "pgbouncer" (PgBouncer, pool_mode = transaction, PoolerSize server connections);
	// "" none.
	Pooler     string
	PoolerSize int
	// PgBouncer chooses the PgBouncer (version, max_prepared_statements) a pooler is.
	PgBouncer PgBouncerSettings
	// ServerArgs are more server options for an embedded server, after the others:
	// for a scenario that needs a setting dbbench never picks (a log flushed once a
	// second). They are part of Settings, so results name them.
	ServerArgs []string
}

// Place is where an embedded server runs.
type Place interface {
	// Command is exec.Command there; the process's PID is this host's.
	Command(bin string, args ...string) *exec.Cmd
	// FreeAddr is IP:PORT there that nothing listens on; the server binds it.
	FreeAddr() (string, error)
}

// KindName is the provider Start brings up, Kind or "embedded" for "", as results and
// progress lines name it.
func (o Options) KindName() string {
	if o.Kind == "" {
		return "embedded"
	}
	return o.Kind
}

// ServerName is the embedded server Start brings up, Server or the default.
func (o Options) ServerName() string {
	if o.Server == "" {
		return Servers[0]
	}
	return o.Server
}

// DB is a running, loaded database.
type DB struct {
	Kind string
	// Server and Daemon, for an embedded server: mariadb or mysql, and its process
	// (mariadbd, mysqld) as messages name it. "" for servers dbbench did not start.
	Server string
	Daemon string
	// conn reaches the server, password included (never print it: use Redacted).
	conn conn
	// Pooler is the transaction pooler the targets reach the server through (Options'),
	// nil without one.
	Pooler *PgBouncer
	Rows   int
	// Server facts for results.json, read once after start.
	Version string
	// For the embedded server: its process (the runner reads its CPU time from /proc)
	// and its private directory. Zero for servers dbbench did not start.
	PID     int
	Dir     string
	close   func() error
	restart func(ctx context.Context) error // nil: dbbench cannot restart it
}

// Restart starts an embedded server that died again, on the same datadir and port;
// ok is false for a server dbbench did not start, whose owner brings it back.
func (d *DB) Restart(ctx context.Context) (ok bool, err error) {
	if d.restart == nil {
		return false, nil
	}
	return true, d.restart(ctx)
}

// DSN is the full go-sql-driver DSN, or PostgreSQL's URL, password included: write it
// only to a 0600 file.
func (d *DB) DSN() string { return d.conn.DSN() }

// Protocol is the wire protocol the server speaks.
func (d *DB) Protocol() protocol.Protocol { return d.conn.Protocol() }

// Addr is the server's host:port.
func (d *DB) Addr() string { return d.conn.Addr() }

// TargetAddr is where the targets reach the server: its pooler when it has one.
func (d *DB) TargetAddr() string {
	if d.Pooler != nil {
		return d.Pooler.Addr
	}
	return d.Addr()
}

// Redacted is the DSN with the password masked, for people and logs.
func (d *DB) Redacted() string { return d.conn.Redacted() }

// Open returns a new pool on the database; the caller closes it.
func (d *DB) Open() (*sql.DB, error) { return d.conn.Open() }

// Close stops what Start started (for embedded: the server and its datadir). Safe to
// call more than once.
func (d *DB) Close() error {
	if d == nil || d.close == nil {
		return nil
	}
	f := d.close
	d.close = nil
	return f()
}

// Start brings the database up, loads the fixtures (users, and orders when asked) and
// verifies their checksums. On any error everything started so far is stopped again.
func Start(ctx context.Context, o Options) (*DB, error) {
	if o.Log == nil {
		o.Log = os.Stderr
	}
	db, err := start(ctx, o)
	if err != nil || o.OrdersPerUser == 0 {
		return db, err
	}
	if err := db.loadOrders(ctx, o); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// loadOrders loads and verifies the orders table on the users Start loaded.
func (d *DB) loadOrders(ctx context.Context, o Options) error {
	pool, err := d.Open()
	if err != nil {
		return err
	}
	defer pool.Close()
	t0 := time.Now()
	if err := d.conn.LoadOrders(ctx, pool, d.Rows, o.OrdersPerUser, o.ReplaceTable == schema.OrdersTable); err != nil {
		return fmt.Errorf("%s provider: %w", d.Kind, err)
	}
	fmt.Fprintf(o.Log, "loaded %d orders per user in %.2fs, checksum verified\n", o.OrdersPerUser, time.Since(t0).Seconds())
	return nil
}

// start is Start without the orders.
func start(ctx context.Context, o Options) (*DB, error) {
	if o.Rows == 0 {
		o.Rows = fixtures.DefaultRows
	}
	if o.MaxConnections == 0 {
		o.MaxConnections = 512
	}
	if o.ReplaceTable != "" && o.ReplaceTable != schema.Table && o.ReplaceTable != schema.OrdersTable {
		return nil, fmt.Errorf("--replace-table %q: dbbench replaces only its own tables, %s and %s", o.ReplaceTable, schema.Table, schema.OrdersTable)
	}
	if started, pooler := Behind(o.Server); pooler != "" {
		o.PgBouncer = poolerSettings(o.Server, o.PgBouncer)
		o.Server, o.Pooler = started, pooler
	}
	if o.Server == "postgres" {
		return startPostgres(ctx, o)
	}
	var (
		db  *DB
		err error
	)
	switch o.Kind {
	case "", "embedded":
		db, err = startEmbedded(ctx, o)
	case "dsn":
		db, err = attachDSN(ctx, o)
	case "testcontainers":
		db, err = startContainer(ctx, o)
	default:
		return nil, fmt.Errorf("unknown provider %q (want one of %s)", o.Kind, strings.Join(Kinds, ", "))
	}
	if err != nil {
		return nil, err
	}
	db.Rows = o.Rows
	if err := db.load(ctx, o.Log, o.ReplaceTable == schema.Table); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func (d *DB) load(ctx context.Context, log io.Writer, replace bool) error {
	pool, err := d.Open()
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := pool.QueryRowContext(ctx, "SELECT VERSION()").Scan(&d.Version); err != nil {
		return fmt.Errorf("%s provider: read server version: %w", d.Kind, err)
	}
	t0 := time.Now()
	load := fixtures.Load
	if replace {
		load = fixtures.LoadReplacing
	}
	if err := load(ctx, pool, d.Rows); err != nil {
		return fmt.Errorf("%s provider: %w", d.Kind, err)
	}
	loaded := time.Since(t0)
	if err := fixtures.VerifyFresh(ctx, pool, d.Rows); err != nil {
		return err
	}
	fmt.Fprintf(log, "loaded %d users in %.2fs, checksum verified\n", d.Rows, loaded.Seconds())
	return nil
}

// ping opens a short-lived pool and pings until ctx ends; a refused connection is
// retried, an authentication error is returned at once.
func ping(ctx context.Context, cfg *mysql.Config) error {
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	pool := sql.OpenDB(c)
	defer pool.Close()
	return pool.PingContext(ctx)
}

// Rebind is a query of the runner's own, written with MySQL's ? placeholders, as the
// server takes it (PostgreSQL numbers them: $1, $2, …).
func (d *DB) Rebind(q string) string { return d.conn.Rebind(q) }
