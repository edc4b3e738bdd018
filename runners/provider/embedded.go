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

	"dbbench/runners/freeport"
	"dbbench/runners/loglines"
	"dbbench/runners/secret"
)

// TempPrefix starts the name of every embedded server's temporary directory, so tests
// (and people) can check that none is left behind.
const TempPrefix = "dbbench-mariadb-"

// EmbeddedSettings are the server options beyond the per-run ones (port, socket,
// max_connections). They are written into results.json next to the measurements;
// Settings gives them for a server started with given options.
var EmbeddedSettings = []string{
	"--skip-name-resolve",
	"--max-prepared-stmt-count=1048576", // 64 connections × prepare-per-query must never hit the default 16382
	"--innodb-buffer-pool-size=256M",    // holds the whole users table
	"--thread-cache-size=512",           // per-request variants reconnect all the time
	"--max-connect-errors=1000000000",
	"--general-log=0", // switched on only for the round-trip capture
	"--performance-schema=0",
	"--skip-log-bin",
}

// Settings are the options beyond the per-run ones that an embedded server started
// with o has: EmbeddedSettings, with performance_schema on for Instruments, then
// ServerArgs.
func Settings(o Options) []string {
	out := slices.Clone(EmbeddedSettings)
	if o.Instruments {
		out[slices.Index(out, "--performance-schema=0")] = "--performance-schema=1"
	}
	return append(out, o.ServerArgs...)
}

func startEmbedded(ctx context.Context, o Options) (db *DB, err error) {
	mariadbd, err := exec.LookPath("mariadbd")
	if err != nil {
		return nil, errors.New("embedded provider: no mariadbd on PATH: install Debian's mariadb-server (make deps) or add /usr/sbin to PATH")
	}
	installDB, err := exec.LookPath("mariadb-install-db")
	if err != nil {
		return nil, errors.New("embedded provider: no mariadb-install-db on PATH: install Debian's mariadb-server (make deps)")
	}
	sweepStale()
	dir, err := os.MkdirTemp("", TempPrefix+"*")
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
		user = []string{"--user=root"} // mariadbd refuses to run as root without it
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
	install := exec.CommandContext(ctx, installDB, append([]string{"--no-defaults", "--datadir=" + datadir,
		"--tmpdir=" + tmpdir, "--auth-root-authentication-method=socket", "--skip-test-db"}, user...)...)
	if out, err := install.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("embedded provider: mariadb-install-db: %w: %s", err, installCause(string(out)))
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

	// A port picked free can be taken before mariadbd binds it (another dbbench starting at
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
		args = append([]string{"--no-defaults", "--datadir=" + datadir},
			append(user,
				"--bind-address="+host,
				"--port="+port,
				"--socket="+filepath.Join(dir, "mariadbd.sock"),
				"--tmpdir="+tmpdir,
				"--pid-file="+filepath.Join(dir, "mariadbd.pid"),
				"--log-error="+filepath.Join(dir, "error.log"),
				"--init-file="+initFile,
				"--max-connections="+strconv.Itoa(o.MaxConnections),
			)...)
		args = append(args, Settings(o)...)
		srv, err = launch(ctx, place.Command(mariadbd, args...), dir, addr, password)
		if err == nil {
			break
		}
		if !errors.Is(err, errPortTaken) || attempt == 4 {
			return nil, err
		}
	}
	os.Remove(initFile)
	fmt.Fprintf(o.Log, "embedded mariadbd pid %d on %s, datadir %s\n", srv.cmd.Process.Pid, srv.addr, datadir)
	db = &DB{
		Kind:   "embedded",
		Config: srv.cfg,
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
			return fmt.Errorf("embedded provider: mariadbd pid %d: %w", db.PID, ErrStillRunning)
		}
		s, err := launch(ctx, place.Command(mariadbd, again...), dir, srv.addr, password)
		if err != nil {
			return fmt.Errorf("embedded provider: restart on the same datadir: %w", err)
		}
		srv, db.PID = s, s.cmd.Process.Pid
		fmt.Fprintf(o.Log, "embedded mariadbd restarted on the same datadir: pid %d on %s\n", db.PID, srv.addr)
		return nil
	}
	return db, nil
}

var errPortTaken = errors.New("port taken")

// ErrStillRunning is Restart's answer for a server that is not gone: hung, say.
var ErrStillRunning = errors.New("still running")

type server struct {
	cmd    *exec.Cmd
	done   chan struct{} // closed when the process has exited
	addr   string
	cfg    *mysql.Config
	errLog string
}

func launch(ctx context.Context, cmd *exec.Cmd, dir, addr, password string) (*server, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,            // a terminal's Ctrl-C reaches us, and we stop the server in order
		Pdeathsig: syscall.SIGKILL, // if we are killed outright, the server does not outlive us
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("embedded provider: start mariadbd: %w", err)
	}
	s := &server{cmd: cmd, done: make(chan struct{}), addr: addr, errLog: filepath.Join(dir, "error.log")}
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
			return nil, fmt.Errorf("embedded provider: mariadbd exited during start-up: %s", loglines.Last(log, 3))
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
			return nil, fmt.Errorf("embedded provider: mariadbd not ready after 60s: %w; log: %s", err, loglines.Last(readFile(s.errLog), 3))
		}
	}
}

// stop asks mariadbd to shut down (SIGTERM) and kills it if it has not within 30 s.
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
		return errors.New("embedded provider: mariadbd ignored SIGTERM for 30s and was killed")
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
// (killed with SIGKILL, where no cleanup can run). Their mariadbd died with the owner
// through Pdeathsig.
func sweepStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), TempPrefix+"*"))
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
