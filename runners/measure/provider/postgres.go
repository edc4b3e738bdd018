package provider

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql's "pgx"

	"dbbench/dsn"
	"dbbench/fixtures"
	"dbbench/runners/measure/loglines"
	"dbbench/runners/measure/secret"
)

// PostgresBin is where Debian's postgresql-15 puts its programs (make deps installs it).
const PostgresBin = "/usr/lib/postgresql/15/bin"

// PostgresPrefix is the private directory of an embedded PostgreSQL, in TempPrefixes.
const PostgresPrefix = "dbbench-pg-"

// Postgres is an embedded PostgreSQL 15: a cluster initdb made in a private directory,
// its server on a free port of 127.0.0.1 only, the role dbbench with a generated
// password (SCRAM-SHA-256), and the database dbbench with the users table and its
// fixtures. Close stops it and removes the directory.
type Postgres struct {
	Addr     string // 127.0.0.1:PORT
	User     string
	Database string
	Version  string // "PostgreSQL " and the server's server_version
	password string // never printed: URL has it, Redacted does not
	dir      string
	cmd      *exec.Cmd
	done     chan struct{}
	place    Place    // where the server runs: loopback, or a topology's namespace
	clients  []string // addresses let in besides the loopback
}

// StartPostgres initializes and starts an embedded PostgreSQL that takes up to
// maxConnections clients (0: PostgreSQL's default, 100) and loads rows fixture rows. As
// root, the server runs as Debian's postgres user, since PostgreSQL refuses to run as
// root. pg_stat_statements is loaded, for the server's own count of statements.
func StartPostgres(ctx context.Context, rows, maxConnections int) (pg *Postgres, err error) {
	return StartPostgresAt(ctx, rows, maxConnections, nil, nil)
}

// StartPostgresAt is StartPostgres at place (a topology's namespace; nil: this host's
// loopback), letting in the benchmark role from each client address too (the other
// roles' namespaces, by SCRAM).
func StartPostgresAt(ctx context.Context, rows, maxConnections int, place Place, clients []string) (pg *Postgres, err error) {
	for _, p := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(PostgresBin, p)); err != nil {
			return nil, fmt.Errorf("embedded PostgreSQL: %s not found: apt-get install postgresql-15 (make deps DB=postgres does)", filepath.Join(PostgresBin, p))
		}
	}
	cred, err := postgresCredential()
	if err != nil {
		return nil, err
	}
	sweepStale()
	dir, err := os.MkdirTemp("", PostgresPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	if place == nil {
		place = loopback{}
	}
	pg = &Postgres{User: "dbbench", Database: "dbbench", password: newPassword(), dir: dir, done: make(chan struct{}),
		place: place, clients: clients}
	secret.Register(pg.password)
	started := pg // an error returns a nil pg: stop what was started
	defer func() {
		if err != nil {
			started.Close()
		}
	}()
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		return nil, fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	if err := pg.initdb(ctx, cred); err != nil {
		return nil, err
	}
	if err := pg.start(ctx, cred, maxConnections); err != nil {
		return nil, err
	}
	if err := pg.load(ctx, rows); err != nil {
		return nil, err
	}
	return pg, nil
}

// startPostgres is Start for --db postgres: an embedded PostgreSQL as a DB, its fixtures
// loaded and verified, an existing server (the dsn provider, attachPostgres), or
// PostgreSQL 15 in a container (testcontainers.go), attached to alike.
func startPostgres(ctx context.Context, o Options) (*DB, error) {
	switch o.KindName() {
	case "dsn":
		if o.Pooler != "" {
			return nil, fmt.Errorf("--db postgres: the dsn provider attaches to a server as it is; a pooler goes in front of the embedded one")
		}
		return attachPostgres(ctx, o)
	case "testcontainers":
		return startPostgresContainer(ctx, o)
	case "embedded":
	default:
		return nil, fmt.Errorf("--db postgres: the %s provider does not bring up PostgreSQL; the embedded, dsn and testcontainers ones do", o.KindName())
	}
	if o.Place != nil && o.Pooler != "" {
		return nil, fmt.Errorf("--pooler %s: the pooler runs on this host's loopback only, not in a topology's namespace", o.Pooler)
	}
	t0 := time.Now()
	pg, err := StartPostgresAt(ctx, o.Rows, o.MaxConnections, o.Place, o.Clients)
	if err != nil {
		return nil, err
	}
	db := &DB{Kind: "embedded", Server: "postgres", Daemon: "postgres", conn: postgresConn{pg.URL()}, Rows: o.Rows, Version: pg.Version,
		PID: pg.cmd.Process.Pid, Dir: pg.dir, close: pg.Close}
	switch o.Pooler {
	case "":
	case "pgbouncer":
		if db.Pooler, err = StartPgBouncer(ctx, pg, o.PoolerSize, "", o.PgBouncer); err != nil {
			pg.Close()
			return nil, err
		}
		db.close = func() error { return errors.Join(db.Pooler.Close(), pg.Close()) }
	default:
		pg.Close()
		return nil, fmt.Errorf("--pooler %q: want pgbouncer", o.Pooler)
	}
	pool, err := db.Open()
	if err != nil {
		db.Close()
		return nil, err
	}
	defer pool.Close()
	if err := fixtures.VerifyPostgres(ctx, pool, o.Rows); err != nil {
		db.Close()
		return nil, fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	fmt.Fprintf(o.Log, "embedded PostgreSQL up and %d users loaded in %.2fs, fixtures verified\n", o.Rows, time.Since(t0).Seconds())
	return db, nil
}

// postgresCredential is who the server runs as: Debian's postgres user when we are
// root, else ourselves (nil).
func postgresCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("embedded PostgreSQL: PostgreSQL refuses to run as root and there is no postgres user to run it as: apt-get install postgresql-15 makes one: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// reachable says why the server's user (cred; nil: ourselves) could not reach dir, its
// private directory under TMPDIR: a directory on the way that is neither its own nor
// searchable by others (a TMPDIR of mode 0700, say) makes initdb fail on a file it
// cannot open, far from the cause.
func reachable(dir string, cred *syscall.Credential) error {
	if cred == nil {
		return nil
	}
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("embedded PostgreSQL: %w", err)
		}
		st, _ := fi.Sys().(*syscall.Stat_t)
		mine := st != nil && (st.Uid == cred.Uid && fi.Mode()&0o100 != 0 || st.Gid == cred.Gid && fi.Mode()&0o010 != 0)
		if !mine && fi.Mode()&0o001 == 0 {
			return fmt.Errorf("embedded PostgreSQL runs as user postgres, which cannot enter %s (mode %v) to reach its directory %s: chmod o+x %s, or set TMPDIR to a directory it can enter", d, fi.Mode().Perm(), dir, d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// initdb makes the cluster: the role dbbench as its superuser, its password from a
// file that lives only as long as initdb runs, SCRAM for every TCP login.
func (pg *Postgres) initdb(ctx context.Context, cred *syscall.Credential) error {
	if err := reachable(pg.dir, cred); err != nil {
		return err
	}
	pwfile := filepath.Join(pg.dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(pg.password+"\n"), 0o600); err != nil {
		return fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	defer os.Remove(pwfile)
	if err := chown(cred, pg.dir, pwfile); err != nil {
		return fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(PostgresBin, "initdb"), "-D", filepath.Join(pg.dir, "data"),
		"-U", pg.User, "--pwfile", pwfile, "--auth-host", "scram-sha-256", "--auth-local", "scram-sha-256",
		"-E", "UTF8", "--locale", "C.UTF-8", "--no-sync", "--no-instructions")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("embedded PostgreSQL: initdb: %w: %s", err, loglines.Last(secret.Scrub(string(out)), 3))
	}
	return nil
}

// command runs bin at the server's place as cred's user. On the loopback the process
// takes the credential itself; in a namespace, `ip netns exec` must run as root, so
// setpriv drops to the user after entering it, exec'ing in the same process: its PID is
// the postmaster's.
func (pg *Postgres) command(cred *syscall.Credential, bin string, args []string) *exec.Cmd {
	var cmd *exec.Cmd
	if _, here := pg.place.(loopback); here || cred == nil {
		cmd = pg.place.Command(bin, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGKILL}
		return cmd
	}
	drop := []string{fmt.Sprintf("--reuid=%d", cred.Uid), fmt.Sprintf("--regid=%d", cred.Gid), "--clear-groups", "--", bin}
	cmd = pg.place.Command("setpriv", append(drop, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// MD5Role is the role the connection-cost measurement makes with an md5 password: the
// cluster lets it in by md5 (md5Login), every other role by SCRAM-SHA-256 only.
const MD5Role = "dbbench_md5"

// md5Login is pg_hba.conf's first line: MD5Role over TCP from the loopback by md5.
const md5Login = "host all " + MD5Role + " 127.0.0.1/32 md5\n"

// tlsArgs writes the certificate and key (runners/measure/provider/tls.go) into the private
// directory, the server's own, and returns the settings that turn TLS on: no target
// uses it, the connection-cost measurement does.
func (pg *Postgres) tlsArgs(cred *syscall.Credential) ([]string, error) {
	cert, key, err := writeCert(pg.dir)
	if err != nil {
		return nil, err
	}
	if err := chown(cred, cert, key); err != nil {
		return nil, fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	return []string{"-c", "ssl=on", "-c", "ssl_cert_file=" + cert, "-c", "ssl_key_file=" + key}, nil
}

// writeHBA puts before initdb's lines of pg_hba.conf md5Login and, for each client
// address of another namespace, a line that lets the benchmark role in from it.
func (pg *Postgres) writeHBA(cred *syscall.Credential) error {
	hba := filepath.Join(pg.dir, "data", "pg_hba.conf")
	b, err := os.ReadFile(hba)
	if err != nil {
		return fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	lines := md5Login
	for _, c := range pg.clients {
		ip := net.ParseIP(c)
		if ip == nil || ip.To4() == nil {
			return fmt.Errorf("embedded PostgreSQL: client %q: want an IPv4 address", c)
		}
		lines += "host all " + pg.User + " " + ip.String() + "/32 scram-sha-256\n"
	}
	if err := os.WriteFile(hba, append([]byte(lines), b...), 0o600); err != nil {
		return fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	if err := chown(cred, hba); err != nil {
		return fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	return nil
}

// chown gives the user a server runs as (cred; nil: ourselves) the files it must own.
func chown(cred *syscall.Credential, paths ...string) error {
	if cred == nil {
		return nil
	}
	for _, p := range paths {
		if err := os.Chown(p, int(cred.Uid), int(cred.Gid)); err != nil {
			return err // names the path
		}
	}
	return nil
}

// start runs the server on a free port of 127.0.0.1, its socket in the private
// directory, and waits until it accepts the benchmark role.
func (pg *Postgres) start(ctx context.Context, cred *syscall.Credential, maxConnections int) error {
	addr, err := pg.place.FreeAddr()
	if err != nil {
		return fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	host, port, _ := net.SplitHostPort(addr)
	logPath := filepath.Join(pg.dir, "postgres.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	defer logFile.Close()
	args := []string{"-D", filepath.Join(pg.dir, "data"), "-c", "listen_addresses=" + host, "-p", port,
		"-c", "unix_socket_directories=" + pg.dir, "-c", "shared_preload_libraries=pg_stat_statements"}
	if err := pg.writeHBA(cred); err != nil {
		return err
	}
	tls, err := pg.tlsArgs(cred)
	if err != nil {
		return err
	}
	args = append(args, tls...)
	if maxConnections > 0 {
		args = append(args, "-c", "max_connections="+strconv.Itoa(maxConnections))
	}
	pg.cmd = pg.command(cred, filepath.Join(PostgresBin, "postgres"), args)
	pg.cmd.Stdout, pg.cmd.Stderr = logFile, logFile
	if err := pg.cmd.Start(); err != nil {
		return fmt.Errorf("embedded PostgreSQL: start: %w", err)
	}
	go func() { pg.cmd.Wait(); close(pg.done) }()
	pg.Addr = addr
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-pg.done:
			return fmt.Errorf("embedded PostgreSQL: the server exited during start-up: %s", loglines.Last(readFile(logPath), 3))
		case <-ctx.Done():
			return fmt.Errorf("embedded PostgreSQL: start interrupted: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		err := pg.ping(ctx, "postgres")
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("embedded PostgreSQL: not ready after 60s: %s; log: %s", secret.Scrub(err.Error()), loglines.Last(readFile(logPath), 3))
		}
	}
}

func (pg *Postgres) ping(ctx context.Context, database string) error {
	return pg.pingURL(ctx, pg.urlOf(database))
}

// pingURL connects to u (the server, or a pooler in front of it) and pings.
func (pg *Postgres) pingURL(ctx context.Context, u string) error {
	db, err := sql.Open("pgx", u)
	if err != nil {
		return err
	}
	defer db.Close()
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return db.PingContext(pctx)
}

// load creates the database dbbench and its users table of rows fixture rows.
func (pg *Postgres) load(ctx context.Context, rows int) error {
	admin, err := sql.Open("pgx", pg.urlOf("postgres"))
	if err != nil {
		return fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+pg.Database+" ENCODING 'UTF8'"); err != nil {
		return fmt.Errorf("embedded PostgreSQL: create database: %w", err)
	}
	db, err := pg.Open()
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE EXTENSION pg_stat_statements"); err != nil {
		return fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	if err := db.QueryRowContext(ctx, "SELECT 'PostgreSQL ' || current_setting('server_version')").Scan(&pg.Version); err != nil {
		return fmt.Errorf("embedded PostgreSQL: version: %w", err)
	}
	if err := fixtures.LoadPostgres(ctx, db, rows); err != nil {
		return fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	return nil
}

// URL is the connection URL of the benchmark database, password included: pass it to
// drivers, never print it (Redacted).
func (pg *Postgres) URL() string { return pg.urlOf(pg.Database) }

// PID is the postmaster's process id.
func (pg *Postgres) PID() int { return pg.cmd.Process.Pid }

// Redacted is URL with its password masked.
func (pg *Postgres) Redacted() string { return dsn.RedactURL(pg.URL()) }

func (pg *Postgres) urlOf(database string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(pg.User, pg.password), Host: pg.Addr, Path: "/" + database,
		RawQuery: "sslmode=disable&connect_timeout=5"}
	return u.String()
}

// Open is a database/sql handle on the benchmark database (pgx's driver).
func (pg *Postgres) Open() (*sql.DB, error) {
	db, err := sql.Open("pgx", pg.URL())
	if err != nil {
		return nil, fmt.Errorf("embedded PostgreSQL: %w", err)
	}
	return db, nil
}

// Close stops the server (a fast shutdown: SIGINT; SIGKILL after 30 s) and removes
// its directory.
func (pg *Postgres) Close() error {
	return stopAndRemove("embedded PostgreSQL", pg.cmd, pg.done, 30*time.Second, pg.dir)
}

// stopAndRemove stops a process of ours started as cmd (done closes once it is waited
// for): SIGINT, then SIGKILL after grace; then removes its private directory.
func stopAndRemove(what string, cmd *exec.Cmd, done <-chan struct{}, grace time.Duration, dir string) error {
	var err error
	if cmd != nil && cmd.Process != nil {
		select {
		case <-done:
		default:
			cmd.Process.Signal(syscall.SIGINT)
			select {
			case <-done:
			case <-time.After(grace):
				cmd.Process.Kill()
				<-done
				err = fmt.Errorf("%s: ignored SIGINT for %s and was killed", what, grace)
			}
		}
	}
	if rerr := os.RemoveAll(dir); rerr != nil && err == nil {
		err = fmt.Errorf("%s: %w", what, rerr)
	}
	return err
}
