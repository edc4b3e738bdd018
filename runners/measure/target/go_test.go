package target

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
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

	"dbbench/fixtures"
	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/dbtest"
	"dbbench/runners/measure/provider"
	"dbbench/runners/measure/revision"
	"dbbench/runners/measure/roundtrip"
)

// testRows is the fixture size of the shared database: small enough to load in a blink,
// large enough for ids that are not all one digit.
const testRows = 1000

// TestMain removes what the lazily started helpers below left: the freshly built binary
// and the one embedded MariaDB all tests of this package share.
func TestMain(m *testing.M) {
	code := m.Run()
	if shared.db != nil {
		if err := shared.db.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "stop shared MariaDB:", err)
			code = 1
		}
	}
	if goBuild.dir != "" {
		os.RemoveAll(goBuild.dir)
	}
	os.Exit(code)
}

var goBuild struct {
	once sync.Once
	dir  string
	err  error
}

// goBinDir builds gotarget from the current source into a temporary directory, once per
// test binary, so no test ever runs a stale bin/gotarget.
func goBinDir(t *testing.T) string {
	t.Helper()
	goBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "dbbench-gotarget-")
		if err != nil {
			goBuild.err = err
			return
		}
		goBuild.dir = dir
		cmd := revision.GoBuild(context.Background(), "../../..", filepath.Join(dir, GoBinary))
		if out, err := cmd.CombinedOutput(); err != nil {
			goBuild.err = fmt.Errorf("go build gotarget: %v\n%s", err, out)
		}
	})
	if goBuild.err != nil {
		t.Fatal(goBuild.err)
	}
	return goBuild.dir
}

var shared struct {
	once    sync.Once
	db      *provider.DB
	dsnFile string
	admin   *sql.DB
	err     error
}

// sharedDB starts one embedded MariaDB with testRows users for the whole test binary
// (stopped in TestMain) and returns it, a 0600 file with its DSN and an admin pool.
func sharedDB(t *testing.T) (*provider.DB, string, *sql.DB) {
	t.Helper()
	shared.once.Do(func() {
		db, err := provider.Start(context.Background(), provider.Options{Rows: testRows, OrdersPerUser: fixtures.DefaultOrdersPerUser, MaxConnections: 500, Log: io.Discard})
		if err != nil {
			shared.err = err
			return
		}
		shared.db = db
		shared.dsnFile, shared.err = writeDSN(db.Dir, "dsn", db.DSN())
		if shared.err != nil {
			return
		}
		shared.admin, shared.err = db.Open()
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.db, shared.dsnFile, shared.admin
}

func writeDSN(dir, name, dsn string) (string, error) {
	path := filepath.Join(dir, name)
	return path, os.WriteFile(path, []byte(dsn+"\n"), 0o600)
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// startGoTarget starts v through Start and stops it when the test ends, checking that
// the process is gone afterwards.
func startGoTarget(t *testing.T, v matrix.Variant, dsnFile string) *Target {
	t.Helper()
	tg, err := Start(context.Background(), specOf(t, v), Options{DSNFile: dsnFile, BinDir: goBinDir(t), Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	pids := tg.PIDs()
	t.Cleanup(func() {
		// An idle keep-alive connection that never carried a request would hold up the
		// graceful shutdown for 5 s (net/http's grace for new connections).
		client.CloseIdleConnections()
		if err := tg.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
		for _, pid := range pids {
			if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
				t.Errorf("gotarget pid %d still exists after Stop (kill 0: %v)", pid, err)
			}
		}
	})
	return tg
}

func goVariant(layer, stmt, conn string, pool int) matrix.Variant {
	return matrix.Variant{Lang: "go", Server: "nethttp", Layer: layer, Stmt: stmt, Conn: conn, Pool: pool}
}

// reply is one HTTP answer.
type reply struct {
	status int
	ctype  string
	body   string
}

// client keeps enough idle connections for the concurrent helpers, so that they reuse
// their connections instead of opening new ones all the time.
var client = &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

func get(t *testing.T, url string) reply {
	t.Helper()
	r, err := fetch(context.Background(), http.MethodGet, url)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func fetch(ctx context.Context, method, url string) (reply, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return reply{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, err
	}
	return reply{resp.StatusCode, resp.Header.Get("Content-Type"), string(b)}, nil
}

// userBody is the exact 200 body for id.
func userBody(id uint32) string {
	b, _ := json.Marshal(struct {
		ID   uint32 `json:"id"`
		Name string `json:"name"`
	}{id, fixtures.Name(id)})
	return string(b)
}

// viaProxy writes a DSN file that reaches the database through addr.
func viaProxy(t *testing.T, db *provider.DB, addr string) string {
	t.Helper()
	dsn, err := roundtrip.RewriteDSN(db.DSN(), addr)
	if err != nil {
		t.Fatal(err)
	}
	path, err := writeDSN(t.TempDir(), "dsn", dsn)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// sequential sends GET /users/{id} for n ids, one at a time, each expecting 200.
func sequential(base string, n int) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		for i := range n {
			id := uint32(1 + (i*379)%testRows)
			r, err := fetch(ctx, http.MethodGet, base+"/users/"+strconv.Itoa(int(id)))
			if err != nil {
				return err
			}
			if r.status != http.StatusOK || r.body != userBody(id) {
				return fmt.Errorf("GET /users/%d = %d %s", id, r.status, r.body)
			}
		}
		return nil
	}
}

// concurrently sends n requests for ids from workers goroutines at once.
func concurrently(base string, n, workers int) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		ids := make(chan int, n)
		for i := range n {
			ids <- 1 + (i*7919)%testRows
		}
		close(ids)
		errs := make(chan error, workers)
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for id := range ids {
					r, err := fetch(ctx, http.MethodGet, base+"/users/"+strconv.Itoa(id))
					if err == nil && r.status != http.StatusOK {
						err = fmt.Errorf("GET /users/%d = %d %s", id, r.status, r.body)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		return <-errs
	}
}

// goDBVariants are every Go variant of the matrix that reads the default database
// (MariaDB), at pool. The matrix and gotarget agree on them (TestMatrixAndTargetsAgree),
// so this is every layer × stmt × conn the target serves on MySQL's protocol; the
// layers of PostgreSQL are postgres_test.go's.
func goDBVariants(t *testing.T, pool int) []matrix.Variant {
	m, err := repoMatrix()
	if err != nil {
		t.Fatal(err)
	}
	var out []matrix.Variant
	for _, v := range m.All(map[string][]int{"go": {pool}}) {
		// The pool as shipped is gotarget's one *sql.DB setting under every layer
		// (go/config/config.go, Shipped): make test takes it with the raw layer,
		// DBBENCH_TEST=full with every layer.
		if v.Conn == "shipped" && v.Layer != "raw" && !opsFull {
			continue
		}
		if v.Lang == "go" && m.Langs["go"].Layers[v.Layer].DB && v.Database == "" {
			out = append(out, v)
		}
	}
	return out
}

// counts is MySQL commands by their general-log name (plus Ping, seen on the wire only).
type counts map[string]int64

// expected is what the matrix says one GET /users/{id} costs in steady state: the claim
// this package checks three ways (general log, wire, status counters).
func expected(t *testing.T, v matrix.Variant) counts {
	m, err := repoMatrix()
	if err != nil {
		t.Fatal(err)
	}
	c := counts{}
	for k, n := range m.Expected(v) {
		c[k] = int64(n)
	}
	return c
}

// writes are statements a target must never send at start-up: it changes no row and no
// schema before a request asks it to (an ORM that migrates at start-up would). With
// stmt=prepared the insert and update ops' statements are prepared at start, which
// writes nothing: a prepared INSERT or UPDATE is allowed, a text one is not.
var writes = regexp.MustCompile(`(?i)^(Query: \s*(INSERT|UPDATE)|(Query|Prepare): \s*(DELETE|REPLACE|ALTER|CREATE|DROP|TRUNCATE|RENAME|GRANT))\b`)

// badIDs must all be answered 400, as URL paths (already escaped where needed).
var badIDs = []string{
	"abc", "-1", "0", "1.5", "99999999999", "4294967296", "+1", "01", "%201", "1%20", "0x10",
	"1;DROP%20TABLE%20users", url.PathEscape("1;DROP TABLE users"), "%27", "1%27%20OR%20%271%27=%271", "",
	strings.Repeat("9", 10240), strings.Repeat("0", 10239) + "1", "%2F", "%00",
}

func TestGoVariants(t *testing.T) {
	db, _, admin := sharedDB(t)
	proxy, err := roundtrip.StartProxyOn("127.0.0.1", db.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	dsnFile := viaProxy(t, db, proxy.Addr())
	ctx := context.Background()
	const pool, n = 4, 20

	t.Run("lang=go/layer=hello/stmt=none/conn=none", func(t *testing.T) {
		var tg *Target
		res, err := roundtrip.Capture(ctx, admin, 1, func(context.Context) error {
			tg = startGoTarget(t, goVariant("hello", "none", "none", 1), "")
			return nil
		}, roundtrip.WithProxy(proxy))
		if err != nil {
			t.Fatal(err)
		}
		assertCounts(t, "start-up log", res.Log, counts{})
		assertCounts(t, "start-up wire", res.Wire, counts{})
		r := get(t, tg.URL+"/hello")
		if r.status != 200 || r.ctype != "text/plain; charset=utf-8" || r.body != "Hello, World!" {
			t.Errorf("GET /hello = %d %q %q", r.status, r.ctype, r.body)
		}
		assertError(t, tg.URL+"/users/1", http.StatusNotFound) // hello has no users
		res, err = roundtrip.Capture(ctx, admin, n, func(ctx context.Context) error {
			for range n {
				if r, err := fetch(ctx, http.MethodGet, tg.URL+"/hello"); err != nil || r.status != 200 {
					return fmt.Errorf("GET /hello = %v, %v", r, err)
				}
			}
			return nil
		}, roundtrip.WithProxy(proxy))
		if err != nil {
			t.Fatal(err)
		}
		assertCounts(t, "steady log", res.Log, counts{})
		assertCounts(t, "steady wire", res.Wire, counts{})
	})

	for _, v := range goDBVariants(t, pool) {
		// Per request, a layer adds Connect and Quit to what it sends pooled, one rule for
		// every layer (matrix.yaml), and TestGoPerRequestDialsEveryRequestUnderConcurrency
		// dials every layer per request: make test counts the raw layer's per request
		// only, DBBENCH_TEST=full every one.
		if v.Conn == "per-request" && v.Layer != "raw" && !opsFull {
			continue
		}
		t.Run(v.Key(), func(t *testing.T) {
			// The previous variant's Quits, sent as it stopped, land before the log is
			// read from: Capture waits for the server's counters to be still first.
			var tg *Target
			res, err := roundtrip.Capture(ctx, admin, 1, func(context.Context) error {
				tg = startGoTarget(t, v, dsnFile)
				return nil
			}, roundtrip.WithProxy(proxy))
			if err != nil {
				t.Fatal(err)
			}
			// What a library sends once at start-up is its own business (go/README.md
			// lists it); it must read, never write, and it is left out of the counts below.
			t.Logf("start-up: log %v, wire %v, statements %q", res.Log, res.Wire, res.Queries)
			for _, q := range res.Queries {
				if writes.MatchString(q) {
					t.Errorf("start-up sends a write: %s", q)
				}
			}

			checkContract(t, tg.URL)

			// Warm-up at concurrency = pool, so every pooled connection is open (and has
			// its statement prepared) before the counting starts.
			if err := concurrently(tg.URL, 10*pool, pool)(ctx); err != nil {
				t.Fatal(err)
			}
			// The last warm-up request's Quit or Close stmt can reach the server after its
			// response reached us: Capture waits until the counters are still.
			res, err = roundtrip.Capture(ctx, admin, n, sequential(tg.URL, n), roundtrip.WithProxy(proxy))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("steady: statements %q", res.Queries)
			want := times(expected(t, v), n)
			assertCounts(t, "steady log", res.Log, want)
			assertCounts(t, "steady wire", res.Wire, want) // so also: no Ping per request
			// The server's own counters agree with its log.
			for cmd, status := range map[string]string{"Prepare": "Com_stmt_prepare", "Execute": "Com_stmt_execute",
				"Close stmt": "Com_stmt_close", "Connect": "Connections"} {
				if res.Status[status] != want[cmd] {
					t.Errorf("%s = %d, want %d (the log's %s)", status, res.Status[status], want[cmd], cmd)
				}
			}
			if res.Status["Com_select"] != n {
				t.Errorf("Com_select = %d, want %d", res.Status["Com_select"], n)
			}
			checkStatements(t, v, res.Queries)

			if err := fixtures.Verify(ctx, admin, testRows); err != nil {
				t.Errorf("table changed by the requests: %v", err)
			}
		})
	}
}

// checkStatements checks the distinct statements the general log saw in steady state:
// one SELECT from users with the id as a parameter, prepared unless interpolated, and
// with stmt=prepared not even that (prepared during the warm-up, reused since).
func checkStatements(t *testing.T, v matrix.Variant, queries []string) {
	t.Helper()
	if v.Stmt == "prepared" {
		if len(queries) != 0 {
			t.Errorf("statements = %q, want none", queries)
		}
		return
	}
	kind := map[bool]string{true: "Query: ", false: "Prepare: "}[v.Stmt == "interpolate"]
	if len(queries) != 1 || !strings.HasPrefix(queries[0], kind) || !regexp.MustCompile("(?i)^\\w+: SELECT .* FROM `?users`?").MatchString(queries[0]) {
		t.Errorf("statements = %q, want one %sSELECT … FROM users", queries, kind)
	}
	if v.Stmt == "prepare" && !strings.Contains(queries[0], "?") {
		t.Errorf("prepared statement %q has no placeholder: the id must be a parameter", queries[0])
	}
}

// checkContract sends good, unknown and bad ids, wrong methods and other paths.
func checkContract(t *testing.T, base string) {
	t.Helper()
	for _, id := range []uint32{1, 2, 42, 379, 999, testRows} {
		r := get(t, base+"/users/"+strconv.Itoa(int(id)))
		if r.status != http.StatusOK || r.ctype != "application/json" || r.body != userBody(id) {
			t.Errorf("GET /users/%d = %d %q %s, want 200 application/json %s", id, r.status, r.ctype, r.body, userBody(id))
		}
	}
	for _, id := range []string{strconv.Itoa(testRows + 1), "4294967295"} {
		assertError(t, base+"/users/"+id, http.StatusNotFound)
	}
	for _, id := range badIDs {
		assertError(t, base+"/users/"+id, http.StatusBadRequest)
	}
	for _, path := range []string{"/", "/nope", "/users/1/name", "/hello/"} { // /users is the list: checkOps
		assertError(t, base+path, http.StatusNotFound)
	}
	for _, m := range []string{http.MethodPost, http.MethodDelete, http.MethodPut} {
		for _, path := range []string{"/users/1", "/hello"} {
			r, err := fetch(context.Background(), m, base+path)
			if err != nil {
				t.Fatal(err)
			}
			if r.status != http.StatusMethodNotAllowed || !isJSONError(r) {
				t.Errorf("%s %s = %d %q %s, want 405 with a JSON error", m, path, r.status, r.ctype, r.body)
			}
		}
	}
}

func assertError(t *testing.T, url string, status int) {
	t.Helper()
	r := get(t, url)
	if r.status != status || !isJSONError(r) {
		t.Errorf("GET %s = %d %q %.200s, want %d with a JSON error", truncate(url, 80), r.status, r.ctype, r.body, status)
	}
}

func isJSONError(r reply) bool {
	var e struct{ Error string }
	return r.ctype == "application/json" && json.Unmarshal([]byte(r.body), &e) == nil && e.Error != ""
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func times(c counts, n int64) counts {
	out := counts{}
	for k, v := range c {
		out[k] = v * n
	}
	return out
}

// assertCounts compares got and want exactly: a command missing from one is zero.
func assertCounts(t *testing.T, what string, got map[string]int64, want counts) {
	t.Helper()
	for k, v := range got {
		if v != want[k] {
			t.Errorf("%s: %s = %d, want %d (all: %v)", what, k, v, want[k], got)
		}
	}
	for k, v := range want {
		if _, ok := got[k]; !ok && v != 0 {
			t.Errorf("%s: %s = 0, want %d (all: %v)", what, k, v, got)
		}
	}
}

// switchProxy forwards TCP to the database and can be switched off (every connection
// cut, and new ones reset as soon as they are accepted: what clients see when the
// server dies), on again, or made to hold new connections until released. It keeps its
// listener while down, so no other process can take the port in between.
type switchProxy struct {
	upstream, addr string
	mu             sync.Mutex
	ln             net.Listener
	isDown         bool
	conns          map[net.Conn]bool
	gate           chan struct{} // new connections wait until it is closed
	held           int           // connections waiting at the gate
	wg             sync.WaitGroup
}

func startSwitchProxy(t *testing.T, upstream string) *switchProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy: %v", err)
	}
	open := make(chan struct{})
	close(open)
	p := &switchProxy{upstream: upstream, addr: ln.Addr().String(), ln: ln, conns: map[net.Conn]bool{}, gate: open}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(func() {
		p.down()
		p.release()
		ln.Close()
		p.wg.Wait()
	})
	return p
}

func (p *switchProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.isDown {
			p.mu.Unlock()
			reset(c)
			continue
		}
		p.conns[c] = true
		gate := p.gate
		p.mu.Unlock()
		p.wg.Add(1)
		go p.pipe(c, gate)
	}
}

// reset closes c with an RST (linger 0): the client's read or write fails at once, as
// against a server that died.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}

func (p *switchProxy) pipe(c net.Conn, gate chan struct{}) {
	defer p.wg.Done()
	defer p.forget(c)
	p.mu.Lock()
	p.held++
	p.mu.Unlock()
	<-gate
	p.mu.Lock()
	p.held--
	down := p.isDown
	p.mu.Unlock()
	if down {
		return
	}
	s, err := net.Dial("tcp", p.upstream)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.conns[s] = true
	p.mu.Unlock()
	defer p.forget(s)
	done := make(chan struct{})
	go func() { io.Copy(c, s); c.Close(); close(done) }()
	io.Copy(s, c)
	s.Close()
	<-done
}

func (p *switchProxy) forget(c net.Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// down cuts every connection and resets new ones from now on; the listener stays.
func (p *switchProxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.isDown = true
	for c := range p.conns {
		reset(c)
	}
}

// up forwards new connections again, on the listener it never gave up.
func (p *switchProxy) up(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.isDown = false
}

func (p *switchProxy) hold() {
	p.mu.Lock()
	p.gate = make(chan struct{})
	p.mu.Unlock()
}

func (p *switchProxy) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.gate:
	default:
		close(p.gate)
	}
}

func (p *switchProxy) heldConns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held
}

// With the database gone every variant answers 503 with a JSON error, for every op, and
// keeps running; once it is back the variant answers 200 again by itself. The first
// outage comes before any /users request, while no statement is prepared or cached yet.
func TestGoDatabaseGoneThenBack(t *testing.T) {
	db, _, _ := sharedDB(t)
	for _, v := range goDBVariants(t, 2) {
		t.Run(v.Key(), func(t *testing.T) {
			proxy := startSwitchProxy(t, db.Addr())
			tg := startGoTarget(t, v, viaProxy(t, db, proxy.addr))
			for round := range 2 {
				proxy.down()
				assertError(t, tg.URL+"/users/7", http.StatusServiceUnavailable)
				// The 503's cause, which a run's reason quotes.
				// Its line comes through a pipe, a moment after the answer.
				waitFor(t, 10*time.Second, func() bool { return strings.Contains(tg.Said(), "GET /users/7: database error") })
				if r := get(t, tg.URL+"/users/abc"); r.status != http.StatusBadRequest {
					t.Errorf("round %d: bad id with the database gone = %d, want 400", round, r.status)
				}
				assertOpsUnavailable(t, tg.URL)
				proxy.up(t)
				waitFor(t, 30*time.Second, func() bool { return get(t, tg.URL+"/users/7").body == userBody(7) })
				if err := concurrently(tg.URL, 20, 2)(context.Background()); err != nil {
					t.Errorf("round %d: after recovery: %v", round, err)
				}
			}
		})
	}
}

func waitFor(t *testing.T, timeout time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// SIGTERM lets a request in flight finish, refuses new ones, and the process exits 0.
func TestGoSIGTERMIsGraceful(t *testing.T) {
	db, _, _ := sharedDB(t)
	proxy := startSwitchProxy(t, db.Addr())
	tg := startGoTarget(t, goVariant("raw", "interpolate", "per-request", 2), viaProxy(t, db, proxy.addr))
	pid := tg.PIDs()[0]

	proxy.hold() // the next request's connection to the database waits at the proxy
	inflight := make(chan reply, 1)
	go func() {
		r, err := fetch(context.Background(), http.MethodGet, tg.URL+"/users/11")
		if err != nil {
			r.body = err.Error()
		}
		inflight <- r
	}()
	waitFor(t, 30*time.Second, func() bool { return proxy.heldConns() == 1 })
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The listener closes at once; the process waits for the request.
	waitFor(t, 30*time.Second, func() bool {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(tg.URL, "http://"), time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("gotarget exited with a request in flight: %v", err)
	}
	proxy.release()
	if r := <-inflight; r.status != http.StatusOK || r.body != userBody(11) {
		t.Fatalf("request in flight during shutdown = %d %s, want 200 %s", r.status, r.body, userBody(11))
	}
	if err := tg.Stop(); err != nil { // reaps the process and reports a non-zero exit
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}

// conn=per-request really dials for every request, also when more requests arrive at
// once than the pool holds (database/sql would otherwise hand a released connection to a
// waiting request instead of closing it).
func TestGoPerRequestDialsEveryRequestUnderConcurrency(t *testing.T) {
	db, dsnFile, admin := sharedDB(t)
	const n, workers, pool = 48, 8, 2
	for _, v := range goDBVariants(t, pool) {
		if v.Conn != "per-request" {
			continue
		}
		t.Run(v.Key(), func(t *testing.T) {
			tg := startGoTarget(t, v, dsnFile)
			res, err := roundtrip.Capture(context.Background(), admin, n, concurrently(tg.URL, n, workers))
			if err != nil {
				t.Fatal(err)
			}
			assertCounts(t, "log", res.Log, times(expected(t, v), n))
			if got := res.Status["Connections"]; got != n {
				t.Errorf("Connections = %d, want %d", got, n)
			}
			stats := dbStats(t, tg)
			if stats["MaxOpenConnections"] != pool || stats["OpenConnections"] != 0 || stats["Idle"] != 0 {
				t.Errorf("DBStats = %v, want MaxOpenConnections %d, nothing open", stats, pool)
			}
			if stats["WaitCount"] != 0 {
				t.Errorf("DBStats WaitCount = %d: a request waited inside database/sql and may have reused a connection", stats["WaitCount"])
			}
		})
	}
	_ = db
}

func dbStats(t *testing.T, tg *Target) map[string]int64 {
	t.Helper()
	r := get(t, tg.AdminURL+"/debug/dbstats")
	if r.status != http.StatusOK || r.ctype != "application/json" {
		t.Fatalf("GET /debug/dbstats = %d %q %s", r.status, r.ctype, r.body)
	}
	var stats map[string]int64
	if err := json.Unmarshal([]byte(r.body), &stats); err != nil {
		t.Fatalf("/debug/dbstats: %v: %s", err, r.body)
	}
	for _, k := range []string{"MaxOpenConnections", "OpenConnections", "InUse", "Idle", "WaitCount", "WaitDuration",
		"MaxIdleClosed", "MaxIdleTimeClosed", "MaxLifetimeClosed", "Holds", "HeldDuration"} {
		if _, ok := stats[k]; !ok {
			t.Errorf("/debug/dbstats lacks %s: %s", k, r.body)
		}
	}
	return stats
}

// The admin listener is on loopback, serves the pool's DBStats and pprof.
func TestGoAdmin(t *testing.T) {
	_, dsnFile, _ := sharedDB(t)
	const pool = 3
	tg := startGoTarget(t, goVariant("raw", "prepared", "persistent", pool), dsnFile)
	if !strings.HasPrefix(tg.AdminURL, "http://127.0.0.1:") {
		t.Errorf("AdminURL = %s, want loopback", tg.AdminURL)
	}
	if err := concurrently(tg.URL, 30, pool)(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := dbStats(t, tg)
	if s["MaxOpenConnections"] != pool || s["InUse"] != 0 || s["OpenConnections"] < 1 || s["OpenConnections"] > pool ||
		s["Idle"] != s["OpenConnections"] || s["MaxIdleClosed"] != 0 {
		t.Errorf("DBStats after 30 requests at concurrency %d = %v", pool, s)
	}
	// One request, one hold of its connection, and no longer than the request took.
	t0 := time.Now()
	if r := get(t, tg.URL+"/users/7"); r.status != http.StatusOK {
		t.Fatalf("GET /users/7 = %d %s", r.status, r.body)
	}
	took := time.Since(t0)
	s2 := dbStats(t, tg)
	if n, d := s2["Holds"]-s["Holds"], time.Duration(s2["HeldDuration"]-s["HeldDuration"]); n != 1 || d <= 0 || d > took {
		t.Errorf("one request: %d holds of %v together, want 1 within the request's %v", n, d, took)
	}
	if r := get(t, tg.AdminURL+"/debug/pprof/"); r.status != http.StatusOK || !strings.Contains(r.body, "goroutine") {
		t.Errorf("GET /debug/pprof/ = %d %.200s", r.status, r.body)
	}
	if r := get(t, tg.AdminURL+"/debug/pprof/goroutine?debug=1"); r.status != http.StatusOK || !strings.Contains(r.body, "net/http") {
		t.Errorf("GET /debug/pprof/goroutine = %d %.200s", r.status, r.body)
	}
	hello := startGoTarget(t, goVariant("hello", "none", "none", 1), "")
	assertError(t, hello.AdminURL+"/debug/dbstats", http.StatusNotFound)
}

// runGotarget runs the binary with args until it exits (it must, within 20 s).
func runGotarget(t *testing.T, args ...string) (exit int, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(goBinDir(t), GoBinary), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("gotarget %q did not exit: %s", args, out)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// Every flag combination that is not a variant is refused at start, naming the problem.
func TestGoRefusesWhatIsNotAVariant(t *testing.T) {
	_, dsnFile, _ := sharedDB(t)
	db := func(args ...string) []string {
		return append([]string{"--dsn-file", dsnFile, "--listen", "127.0.0.1:0"}, args...)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--layer", "hello", "--stmt", "prepare"}, "layer hello uses no database, so --stmt prepare makes no sense"},
		{[]string{"--layer", "hello", "--conn", "persistent"}, "layer hello uses no database, so --conn persistent makes no sense"},
		{[]string{"--layer", "hello", "--pool", "8"}, "layer hello uses no database, so --pool 8 makes no sense"},
		{db("--layer", "hello"), "layer hello uses no database, so --dsn-file makes no sense"},
		{[]string{}, "--layer is required (one of "},
		{db("--layer", "hibernate", "--stmt", "prepare", "--conn", "persistent", "--pool", "4"), `--layer "hibernate" is unknown (want one of `},
		{db("--layer", "raw", "--conn", "persistent", "--pool", "4"), "--stmt is required (one of prepare, prepared, interpolate)"},
		{db("--layer", "raw", "--stmt", "interpolated", "--conn", "persistent", "--pool", "4"), `--stmt "interpolated" is unknown`},
		{db("--layer", "raw", "--stmt", "none", "--conn", "persistent", "--pool", "4"), `--stmt "none" is unknown`},
		{db("--layer", "gorm", "--stmt", "prepare", "--conn", "pooled", "--pool", "4"), `--conn "pooled" is unknown (want one of persistent, per-request, shipped)`},
		{db("--layer", "orm", "--stmt", "prepare", "--conn", "persistent"), "--pool must be at least 1 for layer orm"},
		{db("--layer", "orm", "--stmt", "prepare", "--conn", "persistent", "--pool", "-3"), "--pool must be at least 1 for layer orm"},
		{db("--layer", "raw", "--stmt", "prepare", "--conn", "persistent", "--pool", "four"), `invalid value "four" for flag -pool`},
		{[]string{"--layer", "raw", "--stmt", "prepare", "--conn", "persistent", "--pool", "4"}, "layer raw reads the database: --dsn-file is required"},
		{db("--layer", "raw", "--stmt", "prepared", "--conn", "per-request", "--pool", "4"), "--stmt prepared with --conn per-request is not a variant"},
		{db("--layer", "raw", "--stmt", "prepare", "--conn", "persistent", "--pool", "4", "--admin-listen", "0.0.0.0:0"), `--admin-listen "0.0.0.0:0" must be a loopback address`},
		{db("--layer", "raw", "--stmt", "prepare", "--conn", "persistent", "--pool", "4", "extra"), `unexpected argument "extra"`},
	} {
		exit, out := runGotarget(t, tc.args...)
		if exit != 2 || !strings.Contains(out, tc.want) {
			t.Errorf("gotarget %q: exit %d, output %q; want exit 2 and %q", tc.args, exit, out, tc.want)
		}
	}

	// Through Start the refusal comes back as the error, and nothing is left running.
	excluded := goVariant("raw", "prepared", "per-request", 4)
	m, _ := repoMatrix()
	spec := matrix.Spec{Variant: excluded, Server: m.Langs["go"].Servers["nethttp"], Layer: m.Langs["go"].Layers["raw"]}
	_, err := Start(context.Background(), spec, Options{DSNFile: dsnFile, BinDir: goBinDir(t), Log: testLog{t}})
	if err == nil || !strings.Contains(err.Error(), "--stmt prepared with --conn per-request is not a variant") {
		t.Errorf("Start(prepared, per-request) = %v, want the binary's refusal", err)
	}
}

// A database the target cannot use stops it at start with the DSN redacted, and the
// password appears nowhere in its output, whatever went wrong.
func TestGoStartFailuresNeverShowThePassword(t *testing.T) {
	db, _, _ := sharedDB(t)
	dir := t.TempDir()
	const wrong = "Wr0ngPassw0rdXYZ"
	cfg := dbtest.ConfigOf(t, db)
	bad := cfg.Clone()
	bad.Passwd = wrong
	wrongPW, _ := writeDSN(dir, "wrong", bad.FormatDSN())
	closed := cfg.Clone()
	closed.Addr = "127.0.0.1:1"
	noServer, _ := writeDSN(dir, "closed", closed.FormatDSN())
	malformed, _ := writeDSN(dir, "malformed", "dbbench:"+wrong+"@tcp(127.0.0.1:1/dbbench")
	twoLines, _ := writeDSN(dir, "two", db.DSN()+"\n"+db.DSN())
	for _, tc := range []struct {
		file, password string
		want           []string
	}{
		{wrongPW, wrong, []string{"cannot reach the database at dbbench:****@tcp(" + db.Addr() + ")/dbbench", "Access denied"}},
		{noServer, dbtest.ConfigOf(t, db).Passwd, []string{"cannot reach the database at dbbench:****@tcp(127.0.0.1:1)/dbbench", "connection refused"}},
		{malformed, wrong, []string{"malformed DSN (want user:password@tcp(host:port)/database)"}},
		{twoLines, dbtest.ConfigOf(t, db).Passwd, []string{"has more than one line"}},
		{filepath.Join(dir, "missing"), "", []string{"read DSN file", "no such file"}},
	} {
		for _, layer := range []string{"raw", "orm", "gorm"} {
			exit, out := runGotarget(t, "--layer", layer, "--stmt", "prepared", "--conn", "persistent", "--pool", "2",
				"--dsn-file", tc.file, "--listen", "127.0.0.1:0")
			if exit != 1 {
				t.Errorf("%s with %s: exit %d, want 1: %s", layer, filepath.Base(tc.file), exit, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("%s with %s: output %q lacks %q", layer, filepath.Base(tc.file), out, w)
				}
			}
			if tc.password != "" && strings.Contains(out, tc.password) {
				t.Errorf("%s with %s: output shows the password: %s", layer, filepath.Base(tc.file), out)
			}
		}
	}
}

// gotarget --ping times COM_PINGs to the database and prints their median in seconds:
// how the runner measures the distance from an app host it reaches over SSH.
func TestGoPing(t *testing.T) {
	_, dsnFile, _ := sharedDB(t)
	code, out := runGotarget(t, "--ping", "5", "--dsn-file", dsnFile)
	rtt, err := strconv.ParseFloat(strings.TrimSpace(out), 64)
	if code != 0 || err != nil || rtt <= 0 || rtt > 1 {
		t.Fatalf("gotarget --ping: exit %d, %q", code, out)
	}
}

// While down the proxy keeps its port: another process cannot listen there (the old
// proxy closed its listener for the outage, and a stranger could take the port), and a
// client is reset at once rather than refused.
func TestSwitchProxyKeepsItsPort(t *testing.T) {
	p := startSwitchProxy(t, "127.0.0.1:1")
	p.down()
	for range 20 {
		if ln, err := net.Listen("tcp", p.addr); err == nil {
			ln.Close()
			t.Fatalf("a stranger listened on %s while the proxy was down", p.addr)
		}
	}
	// The proxy accepts and resets at once: the client's dial or its first read fails,
	// whichever the reset reaches first.
	if c, err := net.Dial("tcp", p.addr); err == nil {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Error("read while down: want the proxy's reset or end, got data")
		} else if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Error("read while down: nothing for 5 s, want the proxy's reset at once")
		}
		c.Close()
	}
	p.up(t)
}
