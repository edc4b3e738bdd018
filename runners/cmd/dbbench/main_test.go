package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"dbbench/runners/measure/dbtest"
)

var bin string // the dbbench binary under test, built fresh

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dbbench-cli-test-")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "dbbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("build dbbench: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// dbbench runs the binary to completion and returns its exit code, stdout and stderr.
// The timeout only guards against a hang: an ab builds two revisions and measures
// them, which on a busy 2-core machine may take minutes (the package has 30).
func dbbench(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = "../../.." // the repository, so runners/matrix.yaml is found
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("run dbbench: %v", err)
	}
	return code, stdout.String(), stderr.String()
}

// Bad input: one clear line naming the problem, a non-zero status, and the password
// (here the distinctive "Sesame4711") nowhere in the output.
func TestBadInputGivesOneClearLine(t *testing.T) {
	db := dbtest.Start(t, 10)
	wrongPassword := "dbbench:Sesame4711@tcp(" + db.Config.Addr + ")/dbbench"
	badMatrix := filepath.Join(t.TempDir(), "matrix.yaml")
	orig, err := os.ReadFile("../../matrix.yaml")
	if err != nil {
		t.Fatal(err)
	}
	typo := bytes.Replace(orig, []byte("conn: [persistent, per-request]"), []byte("conn: [persistent, per-requets]"), 1)
	os.WriteFile(badMatrix, typo, 0o644)
	typoLine := 1 + bytes.Count(typo[:bytes.Index(typo, []byte("per-requets"))], []byte("\n"))

	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"malformed DSN", nil, []string{"db", "up", "--provider", "dsn", "--dsn", "dbbench:Sesame4711@127.0.0.1:3306/dbbench"}, "malformed DSN"},
		{"DSN without database", nil, []string{"db", "up", "--provider", "dsn", "--dsn", "dbbench:Sesame4711@tcp(127.0.0.1:1)/"}, "names no database"},
		{"unreachable host", nil, []string{"db", "up", "--provider", "dsn", "--dsn", "dbbench:Sesame4711@tcp(127.0.0.1:1)/dbbench"}, "cannot reach dbbench:****@tcp(127.0.0.1:1)/dbbench"},
		{"wrong password", nil, []string{"db", "up", "--provider", "dsn", "--dsn", wrongPassword}, "Access denied"},
		{"no mariadbd on PATH", []string{"PATH=" + t.TempDir()}, []string{"db", "up", "--rows", "10"}, "no mariadbd on PATH"},
		{"unknown provider", nil, []string{"db", "up", "--provider", "docker"}, "--provider docker: must be one of embedded, dsn, testcontainers"},
		{"unknown preset", nil, []string{"run", "--preset", "quik"}, `unknown preset "quik"`},
		{"a pooler without PostgreSQL", nil, []string{"run", "--pooler", "pgbouncer"}, "--pooler pgbouncer sits in front of PostgreSQL: it needs --db postgres alone"},
		{"an unknown pooler", nil, []string{"run", "--db", "postgres", "--pooler", "odyssey"}, "--pooler odyssey: must be one of"},
		{"a soak of a MySQL layer on PostgreSQL", nil, []string{"soak", "--db", "postgres", "--variants", "lang=go/layer=raw/stmt=prepare/conn=persistent"}, "soak: --variants: variant lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/pool=16/db=postgres: go layer raw does not read postgres"},
		{"a soak variant on another server", nil, []string{"soak", "--db", "pgbouncer", "--variants", "lang=php/layer=raw/stmt=prepare/conn=persistent/db=mysql"}, "names db=mysql, but the soak measures --db pgbouncer"},
		{"a pool sweep of a MySQL layer on PostgreSQL", nil, []string{"sweep", "pool", "--db", "postgres", "--variants", "lang=go/layer=beego/stmt=interpolate/conn=persistent"}, "go layer beego does not read postgres"},
		{"an RTT sweep variant on another server", nil, []string{"sweep", "rtt", "--db", "pgbouncer", "--variants", "lang=go/layer=pgx/stmt=exec/conn=persistent/db=postgres"}, "names db=postgres, but the sweep measures --db pgbouncer"},
		{"max_prepared_statements on PgBouncer 1.18", nil, []string{"run", "--db", "pgbouncer", "--pgbouncer-version", "1.18", "--max-prepared-statements", "10"}, "--max-prepared-statements 10: PgBouncer 1.18 has no prepared statements in transaction mode"},
		{"a PgBouncer setting no server uses", nil, []string{"run", "--db", "postgres,pgbouncer-118", "--max-prepared-statements", "50"}, "--max-prepared-statements sets the PgBouncer of --db pgbouncer or --pooler pgbouncer; --db postgres,pgbouncer-118 has none to set"},
		{"a server limit on a server not started", nil, []string{"run", "--provider", "dsn", "--dsn", "dbbench:x@tcp(127.0.0.1:1)/dbbench", "--server-max-connections", "151"}, "--server-max-connections 151 starts an embedded server so; --provider dsn attaches to one whose limit is its own"},
		{"max_prepared_stmt_count on PostgreSQL", nil, []string{"run", "--db", "mariadb,postgres", "--max-prepared-stmt-count", "16382"}, "--max-prepared-stmt-count 16382 is MariaDB's and MySQL's setting; --db postgres has no such limit"},
		{"poisson arrivals in a closed loop", nil, []string{"run", "--arrivals", "poisson"}, "--arrivals poisson spaces an open loop's sends: give --rate"},
		{"an unknown PgBouncer", nil, []string{"run", "--db", "pgbouncer", "--pgbouncer-version", "1.21"}, "--pgbouncer-version 1.21: must be one of 1.24, 1.18"},
		{"a pooler in front of a pooler", nil, []string{"run", "--db", "pgbouncer", "--pooler", "pgbouncer"}, "it needs --db postgres alone (or --db postgres,pgbouncer to pair the two)"},
		{"bad variants pattern", nil, []string{"run", "--variants", "("}, "run: --variants: error parsing regexp: missing closing )"},
		{"bad variants pattern of ab", nil, []string{"ab", "HEAD", "HEAD", "--variants", "("}, "ab: --variants: error parsing regexp: missing closing )"},
		{"matrix typo", nil, []string{"variants", "--matrix", badMatrix}, "matrix.yaml:" + strconv.Itoa(typoLine) + `: unknown conn "per-requets" (allowed: persistent, per-request, shipped)`},
		{"unknown flag", nil, []string{"run", "--durration", "1s"}, "flag provided but not defined: -durration"},
		{"unknown command", nil, []string{"bench"}, `unknown command "bench"`},
		{"unknown design", nil, []string{"run", "--design", "zigzag"}, "--design zigzag: must be one of interleave, walk, alternate"},
		{"turns at a rate", nil, []string{"run", "--design", "interleave", "--rate", "100"}, "with --rate use --design walk or alternate"},
		{"precision of 100%", nil, []string{"run", "--precision", "100"}, "--precision 100: must be a percentage above 0 and below 100"},
		{"profile without a variant", nil, []string{"profile", "--duration", "2s"}, "profile needs a variant"},
		{"profile too short", nil, []string{"profile", "lang=go/layer=raw/stmt=interpolate/conn=persistent/pool=8", "--duration", "500ms"}, "--duration 500ms: must be 1s or more"},
		{"profile of nonsense", nil, []string{"profile", "lang=go/layer=hello/stmt=prepare/conn=none/pool=1"}, `no stmt "prepare"`},
		{"nonsense variant", nil, []string{"serve", "lang=go/layer=hello/stmt=prepare/conn=none/pool=1"}, `no stmt "prepare"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := dbbench(t, tc.env, tc.args...)
			if code == 0 {
				t.Fatalf("exit status 0, want non-zero; stderr: %s", stderr)
			}
			var errLines []string
			for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if strings.HasPrefix(l, "dbbench: ") {
					errLines = append(errLines, l)
				}
			}
			if len(errLines) != 1 || !strings.Contains(errLines[0], tc.want) {
				t.Fatalf("want one 'dbbench: ' line containing %q; stderr:\n%s", tc.want, stderr)
			}
			if strings.Contains(stdout+stderr, "Sesame4711") || strings.Contains(stdout+stderr, db.Config.Passwd) {
				t.Fatalf("a password was printed:\n%s%s", stdout, stderr)
			}
		})
	}
}

var serverLine = regexp.MustCompile(`embedded mariadbd pid (\d+) on \S+, datadir (\S+)`)

// db up stopped by SIGINT stops its server and removes its datadir; the DSN file it
// wrote is 0600 and holds the password that stdout masks.
func TestDBUpStopsCleanlyOnSIGINT(t *testing.T) {
	dsnFile := filepath.Join(t.TempDir(), "dsn")
	cmd := exec.Command(bin, "db", "up", "--rows", "1000", "--dsn-out", dsnFile)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout lockedBuffer // written by exec's copying goroutine while this one reads it
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var pid int
	var datadir string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := serverLine.FindStringSubmatch(sc.Text()); m != nil {
			pid, _ = strconv.Atoi(m[1])
			datadir = m[2]
		}
		if strings.Contains(sc.Text(), "checksum verified") {
			break
		}
	}
	if pid == 0 {
		t.Fatal("db up never reported its server")
	}
	go io.Copy(io.Discard, stderr)
	// Wait for the banner, printed after the DSN file is written, then interrupt.
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(stdout.String(), "Ctrl-C"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("db up printed no Ctrl-C banner within 60 s; stdout: %s", stdout.String())
		}
	}
	fi, err := os.Stat(dsnFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("DSN file: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	dsn, _ := os.ReadFile(dsnFile)
	_, pw, _ := strings.Cut(strings.SplitN(string(dsn), "@", 2)[0], ":")
	if len(pw) < 20 || strings.Contains(stdout.String(), pw) || !strings.Contains(stdout.String(), "dbbench:****@tcp(127.0.0.1:") {
		t.Fatalf("stdout must show the DSN masked and the file hold the generated password; stdout: %s", stdout.String())
	}
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("db up after SIGINT: %v", err)
	}
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Fatalf("mariadbd %d survived SIGINT to db up", pid)
	}
	if _, err := os.Stat(filepath.Dir(datadir)); !os.IsNotExist(err) {
		t.Fatalf("datadir %s survived SIGINT to db up", datadir)
	}
}

// A test that fails half-way still stops its database: the helper test below fails on
// purpose in a child process, and this test checks what it left.
func TestFailingTestLeavesNoDatabase(t *testing.T) {
	if os.Getenv("DBBENCH_FAIL_HALFWAY") == "1" {
		db := dbtest.Start(t, 10)
		os.Stdout.WriteString("server " + strconv.Itoa(db.PID) + " " + db.Dir + "\n")
		t.Fatal("failing half-way on purpose")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailingTestLeavesNoDatabase$", "-test.v")
	cmd.Env = append(os.Environ(), "DBBENCH_FAIL_HALFWAY=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "failing half-way on purpose") {
		t.Fatalf("the child test should have failed on purpose: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`server (\d+) (\S+)`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("child did not report its server:\n%s", out)
	}
	pid, _ := strconv.Atoi(m[1])
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("mariadbd %d survived the failing test", pid)
	}
	if _, err := os.Stat(m[2]); !os.IsNotExist(err) {
		t.Errorf("directory %s survived the failing test", m[2])
	}
}

// lockedBuffer is a bytes.Buffer that one goroutine may write while another reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
