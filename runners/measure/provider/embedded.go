package provider

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"dbbench/runners/measure/freeport"
	"dbbench/runners/measure/loglines"
	"dbbench/runners/measure/secret"
)

// TakesServerArgs says whether db's server takes Options.ServerArgs: an engine of
// engines.go (MariaDB, MySQL) does; PostgreSQL, directly or behind a pooler, does not.
func TakesServerArgs(db string) bool {
	started, _ := Behind(db)
	_, err := engineOf(started)
	return err == nil
}

// Settings are the options beyond the per-run ones that an embedded server started
// with o has: its engine's, with performance_schema on for Instruments (every
// instrument as shipped) or PerfSchema (every instrument off until the round-trip
// count switches the statement ones on), then ServerArgs. They are written into
// results.json next to the measurements. Nil for a server that is no engine here
// (PostgreSQL).
func Settings(o Options) []string {
	e, err := engineOf(o.Server)
	if err != nil {
		return nil
	}
	out := slices.Clone(e.settings)
	if i := slices.Index(out, psOff); i >= 0 && (o.Instruments || o.PerfSchema) {
		out[i] = "--performance-schema=1"
		if !o.Instruments {
			out = slices.Insert(out, i+1, instrumentsOff)
		}
	}
	return append(out, o.ServerArgs...)
}

func startEmbedded(ctx context.Context, o Options) (db *DB, err error) {
	e, err := engineOf(o.Server)
	if err != nil {
		return nil, err
	}
	daemon, locate, err := e.find(o)
	if err != nil {
		return nil, err
	}
	sweepStale()
	dir, err := os.MkdirTemp("", e.prefix+"*")
	if err != nil {
		return nil, fmt.Errorf("embedded provider: %w", err)
	}
	// From here on every error path removes dir.
	defer func() {
		if err != nil {
			os.RemoveAll(dir)
		}
	}()
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		return nil, fmt.Errorf("embedded provider: %w", err)
	}
	user := []string{}
	if os.Geteuid() == 0 {
		user = []string{"--user=root"} // mariadbd and mysqld refuse to run as root without it
	}
	datadir := filepath.Join(dir, "data")
	// A private tmpdir: at start-up (bootstrap included) mariadbd deletes every "#sql*"
	// file in its tmpdir, so two servers sharing /tmp delete each other's temporary
	// tables ("Unknown table 'mysql.tmp_user_sys'" when two installs overlap), and would
	// delete those of any other MariaDB on the machine.
	tmpdir := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmpdir, 0o700); err != nil {
		return nil, fmt.Errorf("embedded provider: %w", err)
	}
	if err := e.initialize(ctx, daemon, locate, datadir, tmpdir, user); err != nil {
		return nil, err
	}

	var certArgs []string
	if !e.makesCert {
		if certArgs, err = tlsArgs(dir); err != nil {
			return nil, err
		}
	}
	password := newPassword()
	secret.Register(password)
	// The init file creates the benchmark user with the generated password at start-up;
	// it is 0600 inside our private directory and removed as soon as the server is up.
	initFile := filepath.Join(dir, "init.sql")
	initSQL, err := initSQL(password, o.Clients)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(initFile, []byte(initSQL), 0o600); err != nil {
		return nil, fmt.Errorf("embedded provider: %w", err)
	}

	// A port picked free can be taken before the server binds it (another dbbench starting at
	// the same moment): then try again with a new one.
	place := o.Place
	if place == nil {
		place = loopback{}
	}
	var srv *server
	var args []string
	for attempt := 0; ; attempt++ {
		addr, perr := place.FreeAddr()
		if perr != nil {
			return nil, fmt.Errorf("embedded provider: %w", perr)
		}
		host, port, _ := net.SplitHostPort(addr)
		args = append(append([]string{"--no-defaults"}, locate...), "--datadir="+datadir)
		args = append(args,
			append(user,
				"--bind-address="+host,
				"--port="+port,
				"--socket="+filepath.Join(dir, e.daemon+".sock"),
				"--tmpdir="+tmpdir,
				"--pid-file="+filepath.Join(dir, e.daemon+".pid"),
				"--log-error="+filepath.Join(dir, "error.log"),
				"--init-file="+initFile,
				"--max-connections="+strconv.Itoa(o.MaxConnections),
			)...)
		args = append(append(args, certArgs...), Settings(o)...)
		srv, err = launch(ctx, e.daemon, place.Command(daemon, args...), dir, addr, password)
		if err == nil {
			break
		}
		if !errors.Is(err, errPortTaken) || attempt == 4 {
			return nil, err
		}
	}
	os.Remove(initFile)
	fmt.Fprintf(o.Log, "embedded %s pid %d on %s, datadir %s\n", e.daemon, srv.cmd.Process.Pid, srv.addr, datadir)
	db = &DB{
		Kind:   "embedded",
		Server: e.server,
		Daemon: e.daemon,
		conn:   mysqlConn{srv.cfg},
		PID:    srv.cmd.Process.Pid,
		Dir:    dir,
		close: func() error {
			err := srv.stop()
			if rerr := os.RemoveAll(dir); rerr != nil && err == nil {
				err = fmt.Errorf("embedded provider: remove %s: %w", dir, rerr)
			}
			return err
		},
	}
	// A server that died starts again on the same datadir, port and user (the init file
	// is gone: the user is in the datadir now), so what it acknowledged can be counted.
	again := slices.DeleteFunc(slices.Clone(args), func(a string) bool { return strings.HasPrefix(a, "--init-file=") })
	db.restart = func(ctx context.Context) error {
		select {
		case <-srv.done:
		case <-time.After(5 * time.Second): // its exit may not be reaped yet
			return fmt.Errorf("embedded provider: %s pid %d: %w", e.daemon, db.PID, ErrStillRunning)
		}
		s, err := launch(ctx, e.daemon, place.Command(daemon, again...), dir, srv.addr, password)
		if err != nil {
			return fmt.Errorf("embedded provider: restart on the same datadir: %w", err)
		}
		srv, db.PID = s, s.cmd.Process.Pid
		fmt.Fprintf(o.Log, "embedded %s restarted on the same datadir: pid %d on %s\n", e.daemon, db.PID, srv.addr)
		return nil
	}
	return db, nil
}

var errPortTaken = errors.New("port taken")

// ErrStillRunning is Restart's answer for a server that is not gone: hung, say.
var ErrStillRunning = errors.New("still running")

type server struct {
	daemon string // mariadbd, mysqld
	cmd    *exec.Cmd
	done   chan struct{} // closed when the process has exited
	addr   string
	cfg    *mysql.Config
	errLog string
}

func launch(ctx context.Context, daemon string, cmd *exec.Cmd, dir, addr, password string) (*server, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,            // a terminal's Ctrl-C reaches us, and we stop the server in order
		Pdeathsig: syscall.SIGKILL, // if we are killed outright, the server does not outlive us
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("embedded provider: start %s: %w", daemon, err)
	}
	s := &server{daemon: daemon, cmd: cmd, done: make(chan struct{}), addr: addr, errLog: filepath.Join(dir, "error.log")}
	go func() { cmd.Wait(); close(s.done) }()

	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.DBName = "dbbench", password, "dbbench"
	cfg.Net, cfg.Addr = "tcp", addr
	cfg.Timeout = 5 * time.Second
	s.cfg = cfg

	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-s.done:
			log := readFile(s.errLog)
			if strings.Contains(log, "Address already in use") || strings.Contains(log, "Can't start server: Bind on TCP/IP port") {
				return nil, errPortTaken
			}
			return nil, fmt.Errorf("embedded provider: %s exited during start-up: %s", daemon, loglines.Last(log, 3))
		case <-ctx.Done():
			s.stop()
			return nil, fmt.Errorf("embedded provider: start interrupted: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		err := ping(pctx, cfg)
		cancel()
		if err == nil {
			return s, nil
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("embedded provider: %s not ready after 60s: %w; log: %s", daemon, err, loglines.Last(readFile(s.errLog), 3))
		}
	}
}

// stop asks the server to shut down (SIGTERM) and kills it if it has not within 30 s.
func (s *server) stop() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return nil
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		return fmt.Errorf("embedded provider: %s ignored SIGTERM for 30s and was killed", s.daemon)
	}
}

// initSQL creates the benchmark user, with every right, for this host's loopback and
// for each host pattern of clients (the other roles' addresses in a topology).
func initSQL(password string, clients []string) (string, error) {
	var b strings.Builder
	b.WriteString("CREATE DATABASE IF NOT EXISTS dbbench CHARACTER SET utf8mb4;\n")
	for _, host := range append([]string{"127.0.0.1", "localhost"}, clients...) {
		if strings.ContainsAny(host, "'\\\n") {
			return "", fmt.Errorf("embedded provider: client host %q holds a quote, backslash or newline", host)
		}
		fmt.Fprintf(&b, "CREATE USER IF NOT EXISTS 'dbbench'@'%[1]s' IDENTIFIED BY '%[2]s';\nGRANT ALL PRIVILEGES ON *.* TO 'dbbench'@'%[1]s';\n", host, password)
	}
	return b.String(), nil
}

// loopback is the default place of an embedded server: 127.0.0.1 on this host.
type loopback struct{}

func (loopback) Command(bin string, args ...string) *exec.Cmd { return exec.Command(bin, args...) }

func (loopback) FreeAddr() (string, error) { return freeport.Addr() }

// sweepStale removes the directories of embedded servers whose owner process is gone
// (killed with SIGKILL, where no cleanup can run). Their server died with the owner
// through Pdeathsig.
func sweepStale() {
	var dirs []string
	for _, p := range TempPrefixes {
		d, _ := filepath.Glob(filepath.Join(os.TempDir(), p+"*"))
		dirs = append(dirs, d...)
	}
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "owner.pid"))
		if err != nil {
			continue // not ours to judge: maybe still being created
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 {
			continue
		}
		if syscall.Kill(pid, 0) == syscall.ESRCH {
			os.RemoveAll(d)
		}
	}
}

// newPassword makes a 26-character base32 password (A-Z, 2-7, 130 random bits), so it
// needs no quoting in SQL, in a DSN or in a php-fpm environment line.
func newPassword() string { return rand.Text() }

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// installCause picks the lines of mariadb-install-db's output that say what went wrong
// (its server's errors and warnings); the rest is a fixed page of advice. Without such
// lines it falls back to the first ones.
func installCause(out string) string {
	var cause []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "ERROR") || strings.Contains(l, "[Warning]") || strings.Contains(l, "failed") {
			cause = append(cause, strings.TrimSpace(l))
		}
	}
	if len(cause) == 0 {
		return loglines.First(out, 5)
	}
	return strings.Join(cause, " | ")
}
