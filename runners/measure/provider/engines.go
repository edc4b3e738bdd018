package provider

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// Servers are the database servers the embedded provider can start, by the matrix's
// db names (runners/matrix.yaml, dbs); the first is the default.
var Servers = []string{"mariadb", "mysql", "postgres", "pgbouncer", "pgbouncer-118", "pgbouncer-off"}

// poolerDBs are the dbs that are PostgreSQL behind PgBouncer, with the PgBouncer each
// is: pgbouncer the one --pgbouncer-version and --max-prepared-statements choose (1.24
// at its default unless told), the others fixed, so that one run can pair a variant
// through each with itself direct.
var poolerDBs = map[string]*PgBouncerSettings{
	"pgbouncer":     nil,
	"pgbouncer-118": {Version: "1.18"},
	"pgbouncer-off": {Version: "1.24", MaxPreparedStatements: new(int)},
}

// pooled is the server a pooler goes in front of: what every pooler db starts behind
// PgBouncer, and the one --pooler takes.
const pooled = "postgres"

// TakesPooler says whether --pooler may go in front of db.
func TakesPooler(db string) bool { return db == pooled }

// Behind is what a db that is another server behind a pooler starts: the server and
// the pooler (matrix.yaml's server and pooler of that db, a test checks); server
// itself and "" for any other.
func Behind(server string) (started, pooler string) {
	if _, ok := poolerDBs[server]; ok {
		return pooled, "pgbouncer"
	}
	return server, ""
}

// PoolerSettable says whether db is PostgreSQL behind the PgBouncer that
// --pgbouncer-version and --max-prepared-statements set (the others fix theirs).
func PoolerSettable(db string) bool {
	s, ok := poolerDBs[db]
	return ok && s == nil
}

// poolerSettings are the PgBouncer settings db fixes (poolerDBs), else given.
func poolerSettings(db string, given PgBouncerSettings) PgBouncerSettings {
	if s := poolerDBs[db]; s != nil {
		return *s
	}
	return given
}

// ErrNotInstalled says that the server asked for is not on this machine: make deps
// installs it. The command exits with its usage status, as for a wrong flag.
var ErrNotInstalled = errors.New("not installed")

// MySQLVersion is the MySQL release make deps fetches (runners/install-deps.sh) and
// the embedded provider checks it finds.
const MySQLVersion = "8.0.31"

// engine is one server program the embedded provider starts privately: where its
// daemon is, how a datadir is made, and the options it always runs with.
type engine struct {
	server string // the matrix's db name
	daemon string // the process, as logs and messages name it
	prefix string // of the private directory, so tests and sweepStale find it
	// settings are the options beyond the per-run ones (port, socket,
	// max_connections); results.json records them (Settings).
	settings []string
	// find returns the daemon's path and the options that locate its files.
	find func(o Options) (bin string, args []string, err error)
	// initialize makes a datadir, as user (--user=root under root).
	initialize func(ctx context.Context, bin string, args []string, datadir, tmpdir string, user []string) error
	// makesCert: the server makes its own TLS certificate; else tls.go gives it one.
	makesCert bool
}

// engineOf is the engine of a server name; "" is the default.
func engineOf(server string) (*engine, error) {
	switch server {
	case "", "mariadb":
		return mariadb, nil
	case "mysql":
		return mysql8, nil
	}
	return nil, fmt.Errorf("embedded provider: unknown database server %q (want one of %s)", server, strings.Join(Servers, ", "))
}

// TempPrefix starts the name of every embedded MariaDB's temporary directory, so tests
// (and people) can check that none is left behind; TempPrefixes holds every engine's.
const TempPrefix = "dbbench-mariadb-"

// TempPrefixes are the prefixes of every engine's private directory.
var TempPrefixes = []string{TempPrefix, "dbbench-mysql-", PostgresPrefix}

// Options both servers take: the same for a fair comparison, so that what differs
// between them is the server and its defaults as shipped.
var common = []string{
	"--skip-name-resolve",
	"--max-prepared-stmt-count=1048576", // 64 connections × prepare-per-query must never hit the default 16382
	"--innodb-buffer-pool-size=256M",    // holds the whole users table
	"--thread-cache-size=512",           // per-request variants reconnect all the time
	"--max-connect-errors=1000000000",
	"--general-log=0", // switched on only for the round-trip capture
	"--skip-log-bin",  // MySQL 8 writes a binary log by default, MariaDB does not
}

// psOff is performance_schema off, as MariaDB ships; instrumentsOff starts it with
// nothing collected (Options.PerfSchema).
const (
	psOff          = "--performance-schema=0"
	instrumentsOff = "--performance-schema-instrument=%=OFF"
)

var mariadb = &engine{
	server: "mariadb", daemon: "mariadbd", prefix: TempPrefix,
	settings: append(append([]string{}, common...), psOff),
	find: func(Options) (string, []string, error) {
		bin, err := exec.LookPath("mariadbd")
		if err != nil {
			return "", nil, fmt.Errorf("embedded provider: no mariadbd on PATH: install Debian's mariadb-server (make deps) or add /usr/sbin to PATH: %w", ErrNotInstalled)
		}
		return bin, nil, nil
	},
	initialize: func(ctx context.Context, _ string, _ []string, datadir, tmpdir string, user []string) error {
		installDB, err := exec.LookPath("mariadb-install-db")
		if err != nil {
			return fmt.Errorf("embedded provider: no mariadb-install-db on PATH: install Debian's mariadb-server (make deps): %w", ErrNotInstalled)
		}
		install := exec.CommandContext(ctx, installDB, append([]string{"--no-defaults", "--datadir=" + datadir,
			"--tmpdir=" + tmpdir, "--auth-root-authentication-method=socket", "--skip-test-db"}, user...)...)
		if out, err := install.CombinedOutput(); err != nil {
			return fmt.Errorf("embedded provider: mariadb-install-db: %w: %s", err, installCause(string(out)))
		}
		return nil
	},
}

// mysql8 is Oracle's generic MySQL 8.0 build that make deps unpacks into bin/mysql:
// performance_schema on and caching_sha2_password, as the server ships; no X Protocol
// listener, which would take a second port.
var mysql8 = &engine{
	server: "mysql", daemon: "mysqld", prefix: "dbbench-mysql-",
	settings:  append(append([]string{}, common...), "--performance-schema=1", "--mysqlx=OFF"),
	makesCert: true,
	find: func(o Options) (string, []string, error) {
		base := o.MySQLDir
		bin := filepath.Join(base, "bin", "mysqld")
		out, err := exec.Command(bin, "--no-defaults", "--version").Output()
		if err != nil {
			return "", nil, fmt.Errorf("embedded provider: no MySQL %s in %s (make deps DB=mysql fetches it from Maven Central): %w", MySQLVersion, base, ErrNotInstalled)
		}
		if !strings.Contains(string(out), "Ver "+MySQLVersion+" ") {
			return "", nil, fmt.Errorf("embedded provider: %s is %q, want MySQL %s (make deps DB=mysql fetches it): %w", bin, strings.TrimSpace(string(out)), MySQLVersion, ErrNotInstalled)
		}
		return bin, []string{"--basedir=" + base}, nil
	},
	initialize: func(ctx context.Context, bin string, args []string, datadir, tmpdir string, user []string) error {
		init := exec.CommandContext(ctx, bin, append(append([]string{"--no-defaults"}, args...),
			append([]string{"--datadir=" + datadir, "--tmpdir=" + tmpdir, "--initialize-insecure", "--log-error-verbosity=1"}, user...)...)...)
		if out, err := init.CombinedOutput(); err != nil {
			return fmt.Errorf("embedded provider: mysqld --initialize-insecure: %w: %s", err, installCause(string(out)))
		}
		return nil
	},
}
