package provider

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"dbbench/runners/measure/freeport"
	"dbbench/runners/measure/loglines"
	"dbbench/runners/measure/secret"
)

// PgBouncerBin is Debian's pgbouncer (1.18 on Debian 12; make deps installs it).
const PgBouncerBin = "/usr/sbin/pgbouncer"

// PgBouncerVersions are the PgBouncer builds a run can start, by the version people
// name: 1.18, what Debian 12 and Ubuntu 22.04 ship (no prepared statements in
// transaction mode), and 1.24.1, Debian 13's, which make deps DB=pgbouncer builds from
// its source package (runners/install-deps.sh): prepared statements in transaction
// mode, 200 of them per client by default.
var PgBouncerVersions = map[string]string{
	"1.18": PgBouncerBin,
	"1.24": "/usr/local/lib/dbbench/pgbouncer-1.24.1/bin/pgbouncer",
}

// DefaultPgBouncer is the version a pooler is started at unless told: what teams run
// today.
const DefaultPgBouncer = "1.24"

// PgBouncerSettings choose the PgBouncer a run starts and what it is told.
type PgBouncerSettings struct {
	// Version is a key of PgBouncerVersions; "" is DefaultPgBouncer.
	Version string
	// MaxPreparedStatements is max_prepared_statements (PgBouncer 1.21 and later): the
	// protocol-level prepared statements it keeps per server connection, 0 off. Nil
	// leaves the version's default (200 in 1.24.1).
	MaxPreparedStatements *int
}

// noPrepared are the versions without prepared statements in transaction mode (before
// 1.21), which have no max_prepared_statements.
var noPrepared = []string{"1.18"}

// PgBouncerVersionNames are PgBouncerVersions' keys, newest first.
func PgBouncerVersionNames() []string {
	names := slices.Sorted(maps.Keys(PgBouncerVersions))
	slices.Reverse(names)
	return names
}

// Check refuses a version that is not one of PgBouncerVersions, and
// max_prepared_statements asked of a version that has none, saying what there is.
func (s PgBouncerSettings) Check() error {
	v := cmp.Or(s.Version, DefaultPgBouncer)
	if _, ok := PgBouncerVersions[v]; !ok {
		return fmt.Errorf("pgbouncer: version %q: want %s", v, strings.Join(slices.Sorted(maps.Keys(PgBouncerVersions)), " or "))
	}
	if s.MaxPreparedStatements != nil && slices.Contains(noPrepared, v) {
		return fmt.Errorf("PgBouncer %s has no prepared statements in transaction mode: max_prepared_statements needs PgBouncer 1.21 or later", v)
	}
	return nil
}

// binary is the settings' pgbouncer, checked (Check) and found on this machine.
func (s PgBouncerSettings) binary() (string, error) {
	if err := s.Check(); err != nil {
		return "", err
	}
	v := cmp.Or(s.Version, DefaultPgBouncer)
	bin := PgBouncerVersions[v]
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("pgbouncer %s: %s not found (make deps DB=pgbouncer installs it): %w", v, bin, ErrNotInstalled)
	}
	return bin, nil
}

// PgBouncer is a transaction pooler in front of an embedded PostgreSQL: Debian's
// pgbouncer on a free port of 127.0.0.1, pool_mode = transaction, at most PoolSize
// server connections for the benchmark database, its clients authenticated by
// SCRAM as the server's are. Close stops it and removes its directory.
type PgBouncer struct {
	Addr     string // 127.0.0.1:PORT
	PoolSize int    // server connections, at most
	Version  string // as pgbouncer --version says it: 1.18.0
	// MaxPrepared is max_prepared_statements as written in its configuration; nil: the
	// version's default (not written).
	MaxPrepared *int
	bin         string
	pg          *Postgres
	upstream    string // where it reaches the server
	dir         string
	cmd         *exec.Cmd
	done        chan struct{}
}

// StartPgBouncer starts a transaction pooler of poolSize server connections in front
// of pg, reached at upstream ("": pg.Addr; a counting proxy's address to count what
// the pooler sends the server), of the version and settings s says. As root it runs as
// Debian's postgres user: pgbouncer refuses root too.
func StartPgBouncer(ctx context.Context, pg *Postgres, poolSize int, upstream string, s PgBouncerSettings) (b *PgBouncer, err error) {
	bin, err := s.binary()
	if err != nil {
		return nil, err
	}
	if poolSize < 1 {
		return nil, fmt.Errorf("pgbouncer: pool size %d, want at least 1", poolSize)
	}
	cred, err := postgresCredential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", PostgresPrefix+"bouncer-*")
	if err != nil {
		return nil, fmt.Errorf("pgbouncer: %w", err)
	}
	b = &PgBouncer{PoolSize: poolSize, MaxPrepared: s.MaxPreparedStatements, bin: bin, pg: pg, upstream: cmp.Or(upstream, pg.Addr), dir: dir, done: make(chan struct{})}
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		return nil, fmt.Errorf("pgbouncer: %w", err)
	}
	addr, err := freeport.Addr()
	if err != nil {
		return nil, fmt.Errorf("pgbouncer: %w", err)
	}
	b.Addr = addr
	if err := b.writeConfig(cred); err != nil {
		return nil, err
	}
	if out, err := exec.Command(b.bin, "--version").Output(); err == nil {
		if f := strings.Fields(string(out)); len(f) >= 2 {
			b.Version = f[1]
		}
	}
	return b, b.start(ctx, cred)
}

// writeConfig writes pgbouncer.ini and the auth file (the password in clear, 0600,
// readable only by the pooler's user) into the private directory. The pooler reaches
// the server without TLS, as the targets do direct: server_tls_sslmode's default is
// prefer, and the embedded server has TLS for the connection-cost measurement.
func (b *PgBouncer) writeConfig(cred *syscall.Credential) error {
	host, port, _ := net.SplitHostPort(b.Addr)
	pgHost, pgPort, _ := net.SplitHostPort(b.upstream)
	ini := fmt.Sprintf(`[databases]
%[1]s = host=%[2]s port=%[3]s dbname=%[1]s pool_size=%[4]d

[pgbouncer]
listen_addr = %[5]s
listen_port = %[6]s
unix_socket_dir = %[7]s
auth_type = scram-sha-256
auth_file = %[7]s/userlist.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = %[4]d
logfile = %[7]s/pgbouncer.log
pidfile = %[7]s/pgbouncer.pid
ignore_startup_parameters = extra_float_digits
server_tls_sslmode = disable
stats_users = %[8]s
`, b.pg.Database, pgHost, pgPort, b.PoolSize, host, port, b.dir, b.pg.User)
	if b.MaxPrepared != nil {
		ini += fmt.Sprintf("max_prepared_statements = %d\n", *b.MaxPrepared)
	}
	users := fmt.Sprintf("%q %q\n", b.pg.User, b.pg.password)
	for name, text := range map[string]string{"pgbouncer.ini": ini, "userlist.txt": users} {
		p := filepath.Join(b.dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			return fmt.Errorf("pgbouncer: %w", err)
		}
	}
	if err := chown(cred, b.dir, filepath.Join(b.dir, "pgbouncer.ini"), filepath.Join(b.dir, "userlist.txt")); err != nil {
		return fmt.Errorf("pgbouncer: %w", err)
	}
	return nil
}

// start runs pgbouncer in the foreground of its own process group and waits until a
// client gets through it to the database.
func (b *PgBouncer) start(ctx context.Context, cred *syscall.Credential) error {
	b.cmd = exec.Command(b.bin, filepath.Join(b.dir, "pgbouncer.ini"))
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := b.cmd.Start(); err != nil {
		return fmt.Errorf("pgbouncer: start: %w", err)
	}
	go func() { b.cmd.Wait(); close(b.done) }()
	logPath := filepath.Join(b.dir, "pgbouncer.log")
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-b.done:
			return fmt.Errorf("pgbouncer: exited during start-up: %s", loglines.Last(readFile(logPath), 3))
		case <-ctx.Done():
			return fmt.Errorf("pgbouncer: start interrupted: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		err := b.pg.pingURL(ctx, b.URL())
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgbouncer: no connection through it after 30s: %s; log: %s", secret.Scrub(err.Error()), loglines.Last(readFile(logPath), 3))
		}
	}
}

// Describe is the pooler as results.json's environment names it.
func (b *PgBouncer) Describe() string {
	prepared := ""
	if b.MaxPrepared != nil {
		prepared = fmt.Sprintf(", max_prepared_statements = %d", *b.MaxPrepared)
	}
	return fmt.Sprintf("PgBouncer %s, pool_mode = transaction, pool_size = %d%s", b.Version, b.PoolSize, prepared)
}

// PID is the pooler's process: its CPU is the pooler's share of a request.
func (b *PgBouncer) PID() int { return b.cmd.Process.Pid }

// Stats are the benchmark database's running totals in the admin console's SHOW STATS,
// by column: xact, query and, from 1.21, client_parse, server_parse and bind counts
// (total_…_count, the prefix and suffix cut). The server user is one of stats_users.
func (b *PgBouncer) Stats(ctx context.Context) (map[string]int64, error) {
	u, _ := url.Parse(b.URL())
	u.Path = "/pgbouncer" // the admin console speaks the simple query protocol only
	u.RawQuery += "&default_query_exec_mode=simple_protocol"
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		return nil, fmt.Errorf("pgbouncer stats: %w", err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SHOW STATS")
	if err != nil {
		return nil, fmt.Errorf("pgbouncer stats: %s", secret.Scrub(err.Error()))
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("pgbouncer stats: %w", err)
	}
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("pgbouncer stats: %w", err)
		}
		if vals[0].String != b.pg.Database {
			continue
		}
		return statsCounts(cols, vals), nil
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pgbouncer stats: %w", err)
	}
	return nil, fmt.Errorf("pgbouncer stats: no row for database %s", b.pg.Database)
}

// statsCounts keeps SHOW STATS' total_…_count columns, named without prefix and suffix.
func statsCounts(cols []string, vals []sql.NullString) map[string]int64 {
	out := map[string]int64{}
	for i, c := range cols {
		name, ok := strings.CutPrefix(c, "total_")
		if name, ok2 := strings.CutSuffix(name, "_count"); ok && ok2 {
			if n, err := strconv.ParseInt(vals[i].String, 10, 64); err == nil {
				out[name] = n
			}
		}
	}
	return out
}

// URL is the benchmark database through the pooler, password included: never print it.
func (b *PgBouncer) URL() string {
	u, _ := url.Parse(b.pg.URL())
	u.Host = b.Addr
	return u.String()
}

// Close stops pgbouncer (SIGINT: at once; SIGKILL after 10 s) and removes its directory.
func (b *PgBouncer) Close() error {
	return stopAndRemove("pgbouncer", b.cmd, b.done, 10*time.Second, b.dir)
}
