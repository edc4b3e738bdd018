package target

// Integration tests of the PHP targets: the real nginx + php-fpm pair rendered from
// php/conf, against the embedded MariaDB this test binary shares (sharedDB and the HTTP
// helpers are in go_test.go).

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"dbbench/dsn/protocol"
	"dbbench/fixtures"
	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/dbtest"
	"dbbench/runners/measure/roundtrip"
)

const phpRepoRoot = "../../.."

// phpVariants are the matrix's PHP variants at one pool size.
func phpVariants(t *testing.T, pool int) []matrix.Variant {
	t.Helper()
	m, err := repoMatrix()
	if err != nil {
		t.Fatal(err)
	}
	vs := m.All(map[string][]int{"php": {pool}})
	if len(vs) == 0 {
		t.Fatal("matrix.yaml lists no PHP variants")
	}
	return vs
}

// startPHPTarget starts v and, when the test ends, stops it and checks that no nginx or
// php-fpm process and no run directory is left.
func startPHPTarget(t *testing.T, v matrix.Variant, dsnFile, runDir string) *Target {
	t.Helper()
	return startPHPTargetWith(t, v, Options{DSNFile: dsnFile, RunDir: runDir})
}

// startPHPTargetWith is startPHPTarget with more options (the repository root and the
// log are set here).
func startPHPTargetWith(t *testing.T, v matrix.Variant, o Options) *Target {
	t.Helper()
	o.RepoRoot, o.Log = phpRepoRoot, testLog{t}
	runDir := o.RunDir
	tg, err := Start(context.Background(), specOf(t, v), o)
	if err != nil {
		t.Fatal(err)
	}
	pids := tg.PIDs()
	// A master and pool children: php-fpm's (and nginx's master and workers besides), or
	// the worker server's.
	if want := v.Pool + 1; len(pids) < want {
		t.Errorf("PIDs() = %v, want at least %d (a master and %d children)", pids, want, v.Pool)
	}
	t.Cleanup(func() {
		if err := tg.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
		assertGone(t, pids)
		if runDir != "" {
			if left, _ := filepath.Glob(filepath.Join(runDir, PHPTempPrefix+"*")); len(left) > 0 {
				t.Errorf("run directory left after Stop: %v", left)
			}
		}
	})
	return tg
}

// assertGone checks that every pid has exited (a zombie counts: it runs nothing).
func assertGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a hang guard: they exit at once
	for _, pid := range pids {
		for !processGone(pid) {
			if time.Now().After(deadline) {
				b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
				t.Errorf("pid %d (%s) still running 30 s later", pid, strings.ReplaceAll(string(b), "\x00", " "))
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func processGone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && strings.HasPrefix(s[i+1:], " Z")
}

// composerIlluminate says whether php/ loads Illuminate from Composer's vendor/ instead
// of Debian's package. Newer Illuminate releases send other connect-time statements (one
// SET, per the current laravel/framework source), which this machine cannot measure, so
// the builder and orm counts are only asserted for Debian's Illuminate 8.83.
func composerIlluminate() bool {
	_, err := os.Stat(filepath.Join(phpRepoRoot, "php", "vendor", "autoload.php"))
	return err == nil
}

// warmPHP sends requests at twice the pool's concurrency (so every php-fpm child is busy
// and takes some) until every child holds its persistent connection: pool connections
// opened through the proxy since it was reset, and no more.
func warmPHP(t *testing.T, tg *Target, v matrix.Variant, proxy *roundtrip.Proxy) {
	t.Helper()
	for round := 0; ; round++ {
		// New connections each round: resident workers each listen on a socket of their
		// own (SO_REUSEPORT), and the kernel spreads new connections over them.
		client.CloseIdleConnections()
		if err := concurrently(tg.URL, 20*v.Pool, 2*v.Pool)(context.Background()); err != nil {
			t.Fatal(err)
		}
		opened := proxy.Counts()["Connect"]
		if v.Conn == "per-request" || opened == int64(v.Pool) {
			// COM_STMT_CLOSE and COM_QUIT get no reply: PHP sends them and answers the
			// HTTP request at once. Capture waits for them to land before it counts.
			return
		}
		if opened > int64(v.Pool) || round == 20 {
			t.Fatalf("warm-up: %d connections opened by %d PHP workers, want one each", opened, v.Pool)
		}
	}
}

func TestPHPVariants(t *testing.T) {
	db, _, admin := sharedDB(t)
	proxy, err := roundtrip.StartProxyOn("127.0.0.1", dbtest.ConfigOf(t, db).Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	dsnFile := viaProxy(t, db, proxy.Addr())
	ctx := context.Background()
	const pool, n = 3, 20

	for _, v := range phpVariants(t, pool) {
		t.Run(v.Key(), func(t *testing.T) {
			proxy.Reset()
			tg := startPHPTarget(t, v, dsnFile, "")
			r := get(t, tg.URL+"/hello")
			if r.status != 200 || r.ctype != "text/plain; charset=utf-8" || r.body != "Hello, World!" {
				t.Errorf("GET /hello = %d %q %q", r.status, r.ctype, r.body)
			}
			do := sequential(tg.URL, n)
			if v.Layer == "hello" {
				assertError(t, tg.URL+"/users/1", http.StatusNotFound) // hello has no users
				do = func(ctx context.Context) error {
					for range n {
						if r, err := fetch(ctx, http.MethodGet, tg.URL+"/hello"); err != nil || r.status != 200 {
							return fmt.Errorf("GET /hello = %v, %v", r, err)
						}
					}
					return nil
				}
			} else {
				checkContract(t, tg.URL)
				warmPHP(t, tg, v, proxy)
			}

			res, err := roundtrip.Capture(ctx, admin, n, do, roundtrip.WithProxy(proxy))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("per request: log %v, wire %v; statements %q", res.PerRequest(), res.WirePerRequest(), res.Queries)
			if composerIlluminate() {
				t.Logf("php/vendor/ present: the libraries' own statements are not asserted (see php/README.md)")
			} else {
				assertPHPCounts(t, v, res, n)
			}
			if err := fixtures.Verify(ctx, admin, testRows); err != nil {
				t.Errorf("table changed by the requests: %v", err)
			}
		})
	}
}

func assertPHPCounts(t *testing.T, v matrix.Variant, res *roundtrip.Result, n int64) {
	t.Helper()
	wire := times(expected(t, v), n)
	want := times(expected(t, v), n)
	// MariaDB 10.11 writes no general-log row for COM_PING: the log has no Ping.
	delete(want, "Ping")
	assertCounts(t, "steady log", res.Log, want)
	assertCounts(t, "steady wire", res.Wire, wire)
	// The server's own counters agree; a ping is one of Com_admin_commands.
	for cmd, status := range map[string]string{"Prepare": "Com_stmt_prepare", "Execute": "Com_stmt_execute",
		"Close stmt": "Com_stmt_close", "Connect": "Connections", "Ping": "Com_admin_commands"} {
		if res.Status[status] != wire[cmd] {
			t.Errorf("%s = %d, want %d (%s)", status, res.Status[status], wire[cmd], cmd)
		}
	}
	if v.Layer != "hello" && res.Status["Com_select"] != n {
		t.Errorf("Com_select = %d, want %d", res.Status["Com_select"], n)
	}
	// Laravel's connect-time statements (use, set names, set sql_mode) stand beside the
	// select; whatever a library sends, exactly one statement reads users and none writes.
	var selects int
	for _, q := range res.Queries {
		if writes.MatchString(q) {
			t.Errorf("a request sends a write: %s", q)
		}
		if regexp.MustCompile("(?i)^\\w+: select .* from `?users`?").MatchString(q) {
			selects++
		}
	}
	if wantSel := map[bool]int{true: 1, false: 0}[v.Layer != "hello"]; selects != wantSel {
		t.Errorf("statements = %q: %d selects from users, want %d", res.Queries, selects, wantSel)
	}
}

// With the database gone every layer answers 503 (every op) with a JSON error that says
// nothing of the cause, logs the cause to the php-fpm log, and recovers by itself when the database
// is back. The password appears in no file and no log.
func TestPHPDatabaseGoneThenBack(t *testing.T) {
	db, _, _ := sharedDB(t)
	password := dbtest.ConfigOf(t, db).Passwd
	for _, v := range phpVariants(t, 2) {
		if v.Layer == "hello" {
			continue
		}
		t.Run(v.Key(), func(t *testing.T) {
			proxy := startSwitchProxy(t, dbtest.ConfigOf(t, db).Addr)
			runDir := t.TempDir()
			tg := startPHPTarget(t, v, viaProxy(t, db, proxy.addr), runDir)
			if err := concurrently(tg.URL, 10, 2)(context.Background()); err != nil {
				t.Fatal(err)
			}
			proxy.down()
			for range 3 {
				assertError(t, tg.URL+"/users/7", http.StatusServiceUnavailable)
			}
			r := get(t, tg.URL+"/users/7")
			if r.body != `{"error":"database unavailable"}` {
				t.Errorf("503 body = %s, want only {\"error\":\"database unavailable\"}", r.body)
			}
			if r := get(t, tg.URL+"/users/abc"); r.status != http.StatusBadRequest {
				t.Errorf("bad id with the database gone = %d, want 400", r.status)
			}
			assertOpsUnavailable(t, tg.URL)
			proxy.up(t)
			waitFor(t, 30*time.Second, func() bool { return get(t, tg.URL+"/users/7").body == userBody(7) })
			if err := concurrently(tg.URL, 20, 2)(context.Background()); err != nil {
				t.Errorf("after recovery: %v", err)
			}

			dirs, _ := filepath.Glob(filepath.Join(runDir, PHPTempPrefix+"*"))
			if len(dirs) != 1 {
				t.Fatalf("run directories in %s: %v, want one", runDir, dirs)
			}
			if log := readFile(t, tg.Log); !strings.Contains(log, "dbbench: GET /users/7: database error: SQLSTATE[") {
				t.Errorf("%s lacks the database error:\n%s", filepath.Base(tg.Log), log)
			}
			if conf := filepath.Join(dirs[0], "php-fpm.conf"); v.Server == "fpm" && !strings.Contains(readFile(t, conf), "env[DBBENCH_DB_PASSWORD] = $DBBENCH_DB_PASSWORD") {
				t.Errorf("php-fpm.conf does not take the password from php-fpm's environment:\n%s", readFile(t, conf))
			}
			assertNoFileHolds(t, dirs[0], password)
		})
	}
}

// Every connection a PHP process keeps is cut while it is idle (the database restarted,
// a proxy or firewall dropped it): no request fails. php-fpm's persistent PDO pings the
// connection it takes up and opens a new one; a resident worker's read gets "MySQL server
// has gone away" and runs once more on a new connection (php/src/Reconnect.php;
// Illuminate's own retry for builder and orm).
func TestPHPConnectionsCutWhileIdle(t *testing.T) {
	db, _, _ := sharedDB(t)
	const pool = 2
	for _, v := range phpVariants(t, pool) {
		if v.Layer == "hello" || v.Conn != "persistent" {
			continue
		}
		t.Run(v.Key(), func(t *testing.T) {
			proxy := startSwitchProxy(t, dbtest.ConfigOf(t, db).Addr)
			tg := startPHPTarget(t, v, viaProxy(t, db, proxy.addr), "")
			// New client connections each round until every process holds its database
			// connection (two proxied sockets each): the kernel spreads new connections
			// over the workers' sockets.
			waitFor(t, 30*time.Second, func() bool {
				client.CloseIdleConnections()
				if err := concurrently(tg.URL, 10*pool, 2*pool)(context.Background()); err != nil {
					t.Fatal(err)
				}
				proxy.mu.Lock()
				defer proxy.mu.Unlock()
				return len(proxy.conns) == 2*pool
			})
			proxy.down()
			proxy.up(t)
			for round := range 3 {
				client.CloseIdleConnections()
				if err := concurrently(tg.URL, 10*pool, 2*pool)(context.Background()); err != nil {
					t.Fatalf("round %d after the cut: %v", round, err)
				}
			}
		})
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertNoFileHolds checks every file under dir for s.
func assertNoFileHolds(t *testing.T, dir, s string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), s) {
			t.Errorf("%s holds the database password", path)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// The quick preset's load: 64 client connections against pm.max_children 8 queue in the
// backlogs and all get their answer, no 5xx, no timeout (the client's is 15 s).
func TestPHPBurstAtQuickPresetConcurrency(t *testing.T) {
	_, dsnFile, _ := sharedDB(t)
	const pool, clients = 8, 64
	for _, v := range []matrix.Variant{
		{Lang: "php", Server: "fpm", Layer: "raw", Stmt: "interpolate", Conn: "persistent", Pool: pool},    // fastest: deepest queues
		{Lang: "php", Server: "fpm", Layer: "eloquent", Stmt: "prepare", Conn: "per-request", Pool: pool},  // most work per request
		{Lang: "php", Server: "fpm", Layer: "illuminate", Stmt: "prepare", Conn: "persistent", Pool: pool}, // Laravel on a persistent connection
	} {
		t.Run(v.Key(), func(t *testing.T) {
			tg := startPHPTarget(t, v, dsnFile, "")
			if err := concurrently(tg.URL, 30*clients, clients)(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A start that fails says why, with the end of php-fpm's log, and leaves nothing behind.
func TestPHPStartFailureShowsLogAndCleansUp(t *testing.T) {
	_, dsnFile, _ := sharedDB(t)
	// A copy of php/ whose pool configuration php-fpm rejects.
	root := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(phpRepoRoot, "php"), root).CombinedOutput(); err != nil {
		t.Fatalf("copy php/: %v: %s", err, out)
	}
	conf := filepath.Join(root, "php", "conf", "php-fpm.conf.tmpl")
	b := readFile(t, conf)
	if err := os.WriteFile(conf, []byte(strings.Replace(b, "pm = static", "pm = sometimes", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	runDir := t.TempDir()
	before := phpMasters(t)
	v := matrix.Variant{Lang: "php", Layer: "raw", Stmt: "prepare", Conn: "persistent", Pool: 2}
	tg, err := Start(context.Background(), specOf(t, v), Options{DSNFile: dsnFile, RepoRoot: root, RunDir: runDir, Log: io.Discard})
	if err == nil {
		tg.Stop()
		t.Fatal("Start succeeded with pm = sometimes")
	}
	if !strings.Contains(err.Error(), "php-fpm.log: ") || !strings.Contains(err.Error(), "invalid process manager") {
		t.Errorf("error does not quote php-fpm's complaint: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(runDir, "*")); len(left) > 0 {
		t.Errorf("left after a failed start: %v", left)
	}
	if after := phpMasters(t); len(after) > len(before) {
		t.Errorf("php-fpm or nginx masters before %v, after %v", before, after)
	}
}

// phpMasters lists this process's nginx and php-fpm children.
func phpMasters(t *testing.T) []int {
	t.Helper()
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		b, err := os.ReadFile(d + "/stat")
		if err != nil || processGone(pid) {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(os.Getpid()) &&
			(strings.Contains(s, "(nginx)") || strings.Contains(s, "(php-fpm")) {
			out = append(out, pid)
		}
	}
	return out
}

// What PHP cannot serve never reaches a launcher (the matrix refuses it, and the matrix
// and php/ agree: TestMatrixAndTargetsAgree); a database layer without a DSN is refused.
func TestPHPRefusesADatabaseLayerWithoutDSN(t *testing.T) {
	v := matrix.Variant{Lang: "php", Layer: "raw", Stmt: "prepare", Conn: "persistent", Pool: 1}
	_, err := Start(context.Background(), specOf(t, v), Options{RepoRoot: phpRepoRoot, Log: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "needs a database") {
		t.Errorf("Start(%s) without a DSN = %v, want an error saying it needs a database", v.Key(), err)
	}
}

// A DSN over a unix socket is refused: PHP targets reach the database over TCP.
func TestPHPRefusesSocketDSN(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(path, []byte("u:secret@unix(/tmp/x.sock)/dbbench\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	v := matrix.Variant{Lang: "php", Layer: "raw", Stmt: "prepare", Conn: "persistent", Pool: 1}
	_, err := Start(context.Background(), specOf(t, v), Options{DSNFile: path, RepoRoot: phpRepoRoot, Log: io.Discard})
	if err == nil || !strings.Contains(err.Error(), `uses "unix"`) || strings.Contains(err.Error(), "secret") {
		t.Errorf("Start with a unix DSN = %v, want a TCP error without the password", err)
	}
}

// If the process that started the target is killed outright (no cleanup runs), both
// masters get SIGTERM from the kernel and take their workers with them.
func TestPHPNothingOutlivesAKilledParent(t *testing.T) {
	if os.Getenv("DBBENCH_PHP_ORPHAN_HELPER") != "" {
		return // the helper's work is in TestPHPOrphanHelper
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPHPOrphanHelper$", "-test.v")
	runDir := t.TempDir() // the killed helper cannot remove its run directory; the test does
	cmd.Env = append(os.Environ(), "DBBENCH_PHP_ORPHAN_HELPER="+runDir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	// The helper prints "PIDS: 1 2 3 …" once its target serves.
	found := make(chan []int, 1)
	var said strings.Builder
	go func() {
		defer close(found)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "PIDS:")
			if !ok {
				said.WriteString(sc.Text() + "\n")
				continue
			}
			var pids []int
			for _, f := range strings.Fields(line) {
				if pid, err := strconv.Atoi(f); err == nil {
					pids = append(pids, pid)
				}
			}
			found <- pids
			io.Copy(io.Discard, out)
			return
		}
	}()
	var pids []int
	select {
	case pids = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("helper did not start a target within 30s")
	}
	if pids == nil {
		cmd.Wait()
		t.Fatalf("helper started no target:\n%s", said.String())
	}
	if len(pids) < 4 {
		t.Fatalf("helper's target has PIDs %v, want masters and workers", pids)
	}
	t.Cleanup(func() { // should this test fail, its failure leaves nothing running either
		for _, pid := range pids {
			if !processGone(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	cmd.Process.Kill()
	cmd.Wait()
	assertGone(t, pids)
}

// TestPHPOrphanHelper runs only as TestPHPNothingOutlivesAKilledParent's child: it starts
// a hello target, prints its PIDs and waits to be killed.
func TestPHPOrphanHelper(t *testing.T) {
	if os.Getenv("DBBENCH_PHP_ORPHAN_HELPER") == "" {
		t.Skip("helper process of TestPHPNothingOutlivesAKilledParent")
	}
	v := matrix.Variant{Lang: "php", Layer: "hello", Stmt: "none", Conn: "none", Pool: 2}
	runDir := os.Getenv("DBBENCH_PHP_ORPHAN_HELPER")
	tg, err := Start(context.Background(), specOf(t, v), Options{RepoRoot: phpRepoRoot, RunDir: runDir, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Stop() // only if the parent fails to kill us
	fmt.Printf("PIDS: %s\n", strings.Trim(fmt.Sprint(tg.PIDs()), "[]"))
	time.Sleep(30 * time.Second)
}

// Both PHP servers report the memory of a request at its peak: php-fpm on its status
// page, the workers in their status dumps. The status page is php-fpm's own, reachable
// from this host only.
func TestPHPRuntimeMemory(t *testing.T) {
	_, dsnFile, _ := sharedDB(t)
	const pool, mb = 2, 1 << 20
	for _, server := range []string{"fpm", "worker"} {
		for _, l := range []struct{ layer, stmt, conn string }{
			{"hello", "none", "none"}, {"raw", "interpolate", "persistent"},
			{"eloquent", "interpolate", "persistent"}, {"doctrine", "prepare", "per-request"},
		} {
			v := matrix.Variant{Lang: "php", Server: server, Layer: l.layer, Stmt: l.stmt, Conn: l.conn, Pool: pool}
			t.Run(v.Key(), func(t *testing.T) {
				tg := startPHPTarget(t, v, dsnFile, "")
				if tg.Runtime == nil {
					t.Fatal("Runtime is nil")
				}
				before, err := tg.Runtime(context.Background())
				if err != nil {
					t.Fatal(err) // the health check was a request
				}
				const n = 40
				for range 4 { // new connections: the workers each get some
					client.CloseIdleConnections()
					if v.Layer == "hello" {
						for range n / 4 {
							get(t, tg.URL+"/hello")
						}
					} else if err := concurrently(tg.URL, n/4, pool)(context.Background()); err != nil {
						t.Fatal(err)
					}
				}
				s, err := tg.Runtime(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("runtime: %+v", s)
				if got := s.Cumulative["requests"] - before.Cumulative["requests"]; got != n {
					t.Errorf("requests counted = %v, want %d", got, n)
				}
				peak := s.PerRequest["req-peak-B"]
				if peak < mb || peak > 128*mb {
					t.Errorf("req-peak-B = %v, want between 1 MiB and 128 MiB", peak)
				}
				if alloc, ok := s.PerRequest["req-peak-alloc-B"]; server == "worker" && (!ok || alloc < 100_000 || alloc > peak) {
					t.Errorf("req-peak-alloc-B = %v, want between 100 kB and req-peak-B (%v)", alloc, peak)
				}
				// Each process of the pool holds some memory of its own (its heap, what it
				// wrote after the fork), far less than it maps with the others.
				own, procs, err := tg.WorkerMemory()
				if err != nil || procs != pool || own < 64<<10 || own > 128*mb {
					t.Errorf("WorkerMemory = %d B over %d processes (%v), want %d processes of 64 KiB to 128 MiB each", own, procs, err, pool)
				}
				// What outlives a request: a resident worker's app, counted by PHP itself
				// (the soak follows it); php-fpm frees it, and has no such reading.
				switch {
				case server == "fpm" && tg.Memory != nil:
					t.Error("fpm: Memory is set; php-fpm frees a request's memory")
				case server == "worker" && tg.Memory == nil:
					t.Error("worker: Memory is nil")
				case server == "worker":
					if m, err := tg.Memory(context.Background()); err != nil || m < float64(pool)*100_000 || m > float64(pool)*64*mb {
						t.Errorf("worker: Memory = %v, %v; want 100 kB to 64 MiB for each of %d workers", m, err, pool)
					}
				}
				if server == "fpm" {
					assertFPMStatusLocalOnly(t, tg.URL)
				} else if r := get(t, tg.URL+"/fpm-status"); r.status != http.StatusNotFound {
					t.Errorf("worker: GET /fpm-status = %d, want the app's 404", r.status)
				}
			})
		}
	}
}

// php-fpm shows a child's last request's memory only while the child is Idle, and a
// child is Finishing for a moment after its answer has left: fpmRuntime reads the status
// page again until a child that served a request is Idle, and gives up at once when no
// child is busy, as then none will become one.
func TestFPMRuntimeWaitsForAFinishingChild(t *testing.T) {
	const (
		finishing = `{"processes":[{"pid":1,"state":"Finishing","requests":3,"request uri":"/index.php","last request memory":0},` +
			`{"pid":2,"state":"Idle","requests":0,"request uri":"-","last request memory":0}]}`
		idle = `{"processes":[{"pid":1,"state":"Idle","requests":3,"request uri":"/index.php","last request memory":4194304},` +
			`{"pid":2,"state":"Idle","requests":0,"request uri":"-","last request memory":0}]}`
		fresh = `{"processes":[{"pid":1,"state":"Idle","requests":0,"request uri":"-","last request memory":0},` +
			`{"pid":2,"state":"Running","requests":0,"request uri":"/fpm-status?json&full","last request memory":0}]}`
	)
	var reads atomic.Int32
	pages := func(first, then string, after int32) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/fpm-status" {
				http.NotFound(w, r)
				return
			}
			if reads.Add(1) <= after {
				io.WriteString(w, first)
			} else {
				io.WriteString(w, then)
			}
		}))
		t.Cleanup(srv.Close)
		reads.Store(0)
		return srv.URL
	}

	s, err := fpmRuntime(context.Background(), pages(finishing, idle, 3))
	if err != nil || s.PerRequest["req-peak-B"] != 4<<20 || s.Cumulative["requests"] != 3 || reads.Load() != 4 {
		t.Errorf("child Finishing for 3 reads: %+v, %v after %d reads; want 4 MiB and 3 requests on the 4th read", s, err, reads.Load())
	}
	// Nobody busy but this status request: nothing to wait for.
	if s, err := fpmRuntime(context.Background(), pages(fresh, idle, 1)); err == nil || reads.Load() != 1 {
		t.Errorf("no child has served a request, none busy: %+v, %v after %d reads; want an error at once", s, err, reads.Load())
	}
	// A child busy for good: the caller's context ends the wait.
	ctx, cancel := context.WithCancel(context.Background())
	url := pages(finishing, idle, 1<<30)
	go func() {
		for reads.Load() < 3 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if _, err := fpmRuntime(ctx, url); !errors.Is(err, context.Canceled) {
		t.Errorf("child busy until the context ended: %v, want context.Canceled", err)
	}
}

// assertFPMStatusLocalOnly checks that a client from another address than 127.0.0.1
// (here 127.0.0.2, still loopback) gets nginx's 403, as JSON, and no status.
func assertFPMStatusLocalOnly(t *testing.T, base string) {
	t.Helper()
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 5 * time.Second}
	other := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DialContext: dialer.DialContext}}
	resp, err := other.Get(base + "/fpm-status?json&full")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusForbidden || string(body) != `{"error":"forbidden"}` {
		t.Errorf("GET /fpm-status from 127.0.0.2 = %d %s, want 403 {\"error\":\"forbidden\"}", resp.StatusCode, body)
	}
}

// A profiled target, under both servers: Profile returns the stacks Excimer sampled in
// every PHP process since the previous call, as collapsed lines that name the app's own
// frames. A target that is not profiled loads no Excimer and has no Profile.
func TestPHPProfile(t *testing.T) {
	_, dsnFile, _ := sharedDB(t)
	const pool = 2
	for _, server := range []string{"fpm", "worker"} {
		for _, l := range []struct{ layer, stmt, conn string }{
			{"hello", "none", "none"}, {"raw", "interpolate", "persistent"},
		} {
			v := matrix.Variant{Lang: "php", Server: server, Layer: l.layer, Stmt: l.stmt, Conn: l.conn, Pool: pool}
			t.Run(v.Key(), func(t *testing.T) {
				tg := startPHPTargetWith(t, v, Options{DSNFile: dsnFile, Profile: true})
				wantClock := map[string]string{"fpm": "real", "worker": "cpu"}[server]
				if tg.Profile == nil || tg.ProfileClock != wantClock {
					t.Fatalf("Profile set %v, ProfileClock %q: want a hook and %q",
						tg.Profile != nil, tg.ProfileClock, wantClock)
				}
				stacks := profileUntil(t, tg, v, "DbBench\\App::handle")
				for stack := range stacks {
					if !strings.HasPrefix(stack, "php/") && !strings.HasPrefix(stack, "{closure:") {
						t.Errorf("stack %q does not start at a script (php/public/index.php, worker.php)", stack)
						break
					}
				}
				if server == "fpm" { // nothing ran since: nothing new
					if p, err := tg.Profile(context.Background()); err != nil || len(p.Stacks) != 0 {
						t.Errorf("Profile again with no request = %v, %v; want nothing", p, err)
					}
					// The timed samples, which perf's are joined with, name no frame by
					// the checkout's path either.
					timed, err := tg.ProfileTimed(context.Background())
					if err != nil || len(timed) == 0 {
						t.Fatalf("ProfileTimed = %d samples, %v; want the requests' samples", len(timed), err)
					}
					phpDir, err := findPHPDir("")
					if err != nil {
						t.Fatal(err)
					}
					root := filepath.Dir(phpDir) + "/"
					for _, st := range timed {
						if f := strings.Join(st.Frames, ";"); strings.Contains(f, root) {
							t.Errorf("a timed stack names the checkout's path %s: %s", root, f)
							break
						}
					}
				}
			})
		}
	}

	v := matrix.Variant{Lang: "php", Server: "fpm", Layer: "hello", Stmt: "none", Conn: "none", Pool: 1}
	tg := startPHPTargetWith(t, v, Options{})
	ini := readFile(t, filepath.Join(filepath.Dir(tg.Log), "php.ini"))
	if tg.Profile != nil || regexp.MustCompile(`(?m)^\s*(extension\s*=\s*excimer|auto_prepend_file)`).MatchString(ini) {
		t.Errorf("a measured target has a profiler: Profile set %v, php.ini:\n%s", tg.Profile != nil, ini)
	}
}

// profileUntil sends requests until the stacks Profile returned so far (added up) name
// frame, or 60 s pass (a hang guard): the CPU clock samples a process about 250 times per
// CPU-second, so a few hundred ~1 ms requests give a handful of samples. It checks every
// line.
func profileUntil(t *testing.T, tg *Target, v matrix.Variant, frame string) map[string]int64 {
	t.Helper()
	stacks := map[string]int64{}
	deadline := time.Now().Add(60 * time.Second)
	for {
		client.CloseIdleConnections()
		if v.Layer == "hello" {
			for range 200 {
				get(t, tg.URL+"/hello")
			}
		} else if err := concurrently(tg.URL, 200, 2*v.Pool)(context.Background()); err != nil {
			t.Fatal(err)
		}
		p, err := tg.Profile(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if p.Unit != "nanoseconds" {
			t.Fatalf("Profile unit %q, want nanoseconds", p.Unit)
		}
		for _, s := range p.Stacks {
			stack := strings.Join(s.Frames, ";")
			if s.Weight <= 0 || s.Weight%int64(phpProfilePeriod) != 0 {
				t.Errorf("stack %q weighs %d ns, want a positive number of %v periods", stack, s.Weight, phpProfilePeriod)
			}
			stacks[stack] += s.Weight / int64(phpProfilePeriod)
		}
		for stack := range stacks {
			if strings.Contains(stack, frame) {
				t.Logf("%d stacks, %d samples; e.g. %s", len(stacks), sum(stacks), stack)
				return stacks
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no stack names %s after 60 s: %v", frame, stacks)
		}
	}
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// The PHP unit tests that need a MariaDB (php/tests/ResidentDatabaseTest.php: every
// layer as a resident worker runs it, every op, commands per request from SHOW GLOBAL STATUS)
// skip themselves without one: here they get the shared database, so they run in
// make test. Nothing else uses the database meanwhile (the package's tests run one at
// a time), which their global counters need.
func TestPHPUnitAgainstMariaDB(t *testing.T) {
	db, _, admin := sharedDB(t)
	reloadFixtures(t, admin) // the ops tests insert rows; they delete them, but leave the AUTO_INCREMENT counter
	host, port, err := net.SplitHostPort(dbtest.ConfigOf(t, db).Addr)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("phpunit", "--colors=never", "--filter", "ResidentDatabaseTest")
	cmd.Dir = filepath.Join(phpRepoRoot, "php")
	cmd.Env = append(os.Environ(), "DBBENCH_TEST_DB_HOST="+host, "DBBENCH_TEST_DB_PORT="+port,
		"DBBENCH_TEST_DB_NAME="+dbtest.ConfigOf(t, db).DBName, "DBBENCH_TEST_DB_USER="+dbtest.ConfigOf(t, db).User,
		"DBBENCH_TEST_DB_PASSWORD="+dbtest.ConfigOf(t, db).Passwd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("phpunit: %v\n%s", err, out)
	}
	// "OK (N tests" only when nothing was skipped or incomplete.
	if !regexp.MustCompile(`(?m)^OK \([1-9][0-9]* tests?,`).Match(out) {
		t.Fatalf("phpunit ran no test, or skipped some:\n%s", out)
	}
}

// A php-fpm child is held by each request it serves alone, timed on its status page:
// one hold per request, longer than nothing and shorter than the request as the client
// saw it (which adds nginx and the client). Two requests served between readings are
// refused, not mixed up.
func TestFPMHoldsTimeEachRequestsChild(t *testing.T) {
	_, dsnFile, _ := sharedDB(t)
	v := matrix.Variant{Lang: "php", Server: "fpm", Layer: "raw", Stmt: "interpolate", Conn: "persistent", Pool: 2}
	tg := startPHPTarget(t, v, dsnFile, "")
	if tg.Holds == nil {
		t.Fatal("a php-fpm target times no holds")
	}
	ctx := context.Background()
	if err := tg.Holds.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		t0 := time.Now()
		if r := get(t, fmt.Sprintf("%s/users/%d", tg.URL, i+1)); r.status != http.StatusOK {
			t.Fatalf("GET /users/%d = %d %s", i+1, r.status, r.body)
		}
		took := time.Since(t0)
		d, err := tg.Holds.Next(ctx)
		if err != nil || d <= 0 || d > took {
			t.Errorf("request %d: hold %v (%v), want one within the request's %v", i+1, d, err, took)
		}
	}
	get(t, tg.URL+"/users/1")
	get(t, tg.URL+"/users/2")
	if d, err := tg.Holds.Next(ctx); err == nil && d > 0 {
		// Both may have gone to one child, which served two: that is refused too.
		t.Errorf("two requests between readings gave one hold of %v", d)
	}
}

// The DSN file becomes PDO's variables: a go-sql-driver DSN the mysql driver's, a
// PostgreSQL URL the pgsql driver's; what PDO cannot use is named, never its password.
func TestPHPDatabaseEnvFromEitherDSN(t *testing.T) {
	spec := specOf(t, matrix.Variant{Lang: "php", Server: "fpm", Layer: "raw", Stmt: "prepare", Conn: "persistent", Pool: 1})
	const pw = "s3cret-Pw"
	for _, c := range []struct{ line, want, err string }{
		{"u:" + pw + "@tcp(127.0.0.1:3307)/dbbench", "127.0.0.1 3307 dbbench u " + pw + " mysql", ""},
		{"postgres://u:" + pw + "@127.0.0.1:5433/dbbench?sslmode=disable", "127.0.0.1 5433 dbbench u " + pw + " pgsql", ""},
		{"postgresql://u:" + pw + "@db.internal/dbbench", "db.internal 5432 dbbench u " + pw + " pgsql", ""},
		{"u:" + pw + "@unix(/run/mysqld.sock)/dbbench", "", `uses "unix": PHP targets connect over TCP`},
		{"postgres://u:" + pw + "@127.0.0.1:5433/", "", "names no database or no user"},
		{"postgres://u:" + pw + "@/dbbench?host=/run/postgresql", "", "names no host: PHP targets connect over TCP"},
	} {
		file, err := writeDSN(t.TempDir(), "dsn", c.line)
		if err != nil {
			t.Fatal(err)
		}
		env, err := phpDatabaseEnv(spec, file)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), pw) {
				t.Errorf("%s: error %v, want one naming %q and not the password", c.line, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		var vals []string
		for i, kv := range env {
			name, val, _ := strings.Cut(kv, "=")
			if name != phpDBVars[i] {
				t.Errorf("%s: variable %d is %s, want %s", c.line, i, name, phpDBVars[i])
			}
			vals = append(vals, val)
		}
		if got := strings.Join(vals, " "); got != c.want {
			t.Errorf("%s: PDO's variables %q, want %q", c.line, got, c.want)
		}
	}
}

// php-fpm's status page answers 500 now and then when its scoreboard's lock is busy
// (readFPMStatus): the read tries again, a few times, and then gives the error.
func TestFPMStatusReadAgainAfterA500(t *testing.T) {
	for _, c := range []struct {
		fails, wantHits int
		ok              bool
	}{{0, 1, true}, {2, 3, true}, {100, fpmStatusTries, false}} {
		hits := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits++
			if hits <= c.fails {
				http.Error(w, "Internal error. Please review log file for errors.", http.StatusInternalServerError)
				return
			}
			fmt.Fprint(w, `{"processes": [{"pid": 7, "state": "Idle", "requests": 1}]}`)
		}))
		st, err := readFPMStatus(context.Background(), srv.URL)
		srv.Close()
		if (err == nil) != c.ok || hits != c.wantHits {
			t.Errorf("%d 500s: error %v after %d reads, want ok %v after %d", c.fails, err, hits, c.ok, c.wantHits)
		}
		if c.ok && (len(st.Processes) != 1 || st.Processes[0].PID != 7) {
			t.Errorf("%d 500s: read %+v, want the page's one child", c.fails, st)
		}
	}
}

// Every protocol names PDO's driver for it.
func TestEveryProtocolHasAPDODriver(t *testing.T) {
	for _, p := range protocol.All {
		if pdoDriver[p] == "" {
			t.Errorf("protocol %s has no PDO driver in pdoDriver (php.go)", p)
		}
	}
}
