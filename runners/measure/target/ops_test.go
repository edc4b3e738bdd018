package target

// Integration tests of the list, insert, update and orders ops on every layer, Go and
// PHP, against the shared embedded MariaDB: the bodies against the fixture function,
// the 400s, the rows an insert adds, no lost update at 64 clients, and the MySQL
// commands each op costs per request (logged as "ops-count" lines, the figures of
// go/README.md and php/README.md). A test build of gotarget that loses updates on
// purpose proves the update check catches it.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"dbbench/fixtures"
	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/dbtest"
	"dbbench/runners/measure/revision"
	"dbbench/runners/measure/roundtrip"
)

// opsClients is the update check's concurrency: the 64 clients.
const opsClients = 64

// opsVisits is how many visits the update check sends (K): every one must count.
const opsVisits = 256

// comVars are the statement counters the ops move; SHOW GLOBAL STATUS counts a prepared
// statement's execution under its statement's Com_ as well.
var comVars = []string{"Com_begin", "Com_commit", "Com_rollback", "Com_select", "Com_insert", "Com_update"}

// listUsers is the exact 200 body of GET /users?after=&limit= on the fixture rows
// alone: ids after+1.. up to the table's end, names from the fixture function.
func listUsers(after, limit int) string {
	type user struct {
		ID   uint32 `json:"id"`
		Name string `json:"name"`
	}
	out := []user{}
	for id := after + 1; id <= testRows && len(out) < limit; id++ {
		out = append(out, user{uint32(id), fixtures.Name(uint32(id))})
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func post(ctx context.Context, url, body string) (reply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Content-Type", "application/json")
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

// sameJSON says whether a and b are the same JSON value.
func sameJSON(a, b string) bool {
	var va, vb any
	return json.Unmarshal([]byte(a), &va) == nil && json.Unmarshal([]byte(b), &vb) == nil && reflect.DeepEqual(va, vb)
}

func mustPost(t *testing.T, url, body string) reply {
	t.Helper()
	r, err := post(context.Background(), url, body)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// reloadFixtures puts the table back as the fixtures made it (ops write to it), once the
// test's targets are stopped: register it before starting them (cleanups run last
// first).
func reloadFixtures(t *testing.T, admin *sql.DB) {
	t.Cleanup(func() {
		if err := fixtures.Load(context.Background(), admin, testRows); err != nil {
			t.Errorf("reload fixtures: %v", err)
		}
	})
}

// checkOps checks list, insert and update on a target against the fixture table.
func checkOps(t *testing.T, base string, admin *sql.DB) {
	t.Helper()
	// list: exact bodies, the end of the table included, before any insert.
	for _, p := range [][2]int{{0, 1}, {0, 10}, {41, 100}, {990, 10}, {995, 10}, {999, 1000}, {testRows, 5}, {0, 1000}} {
		url := fmt.Sprintf("%s/users?after=%d&limit=%d", base, p[0], p[1])
		r := get(t, url)
		if want := listUsers(p[0], p[1]); r.status != http.StatusOK || r.ctype != "application/json" || r.body != want {
			t.Errorf("GET %s = %d %q %.300s, want 200 application/json %.300s", url[len(base):], r.status, r.ctype, r.body, want)
		}
	}
	if r := get(t, base+"/users?limit=3&after=4294967295"); r.status != http.StatusOK || r.body != "[]" {
		t.Errorf("GET /users after the largest id = %d %s, want 200 []", r.status, r.body)
	}
	for _, q := range []string{"", "?after=1", "?limit=0", "?limit=1001", "?limit=-1", "?limit=01", "?limit=1.5", "?limit=abc",
		"?limit=10&after=-1", "?limit=10&after=4294967296", "?limit=10&after=1%27", "?limit=1&limit=2", "?limit=%zz"} {
		assertError(t, base+"/users"+q, http.StatusBadRequest)
	}

	// insert: 201, the row as sent, an id above the fixtures', readable afterwards.
	names := []string{"Zoë Gray #new", strings.Repeat("é", 64), "Ada 😀", " spaced ", "a\"b\\c/d<e>&'"}
	var ids []int
	for _, name := range names {
		body, _ := json.Marshal(map[string]string{"name": name})
		r := mustPost(t, base+"/users", string(body))
		var u struct {
			ID   int    `json:"id"`
			Name string `json:"name"`
		}
		if r.status != http.StatusCreated || r.ctype != "application/json" || json.Unmarshal([]byte(r.body), &u) != nil ||
			u.Name != name || u.ID <= testRows {
			t.Errorf("POST /users %s = %d %q %s, want 201 with the name and an id above %d", body, r.status, r.ctype, r.body, testRows)
			continue
		}
		// The same JSON value, not the same bytes: Go's encoding/json writes <, > and & as
		// \u003c, \u003e and \u0026, PHP's json_encode writes them as they are.
		want, _ := json.Marshal(u)
		if !sameJSON(r.body, string(want)) || strings.Count(r.body, `"id"`) != 1 {
			t.Errorf("POST /users body %s, want %s", r.body, want)
		}
		if g := get(t, base+"/users/"+strconv.Itoa(u.ID)); g.status != http.StatusOK || !sameJSON(g.body, string(want)) {
			t.Errorf("GET /users/%d after the insert = %d %s, want %s", u.ID, g.status, g.body, want)
		}
		ids = append(ids, u.ID)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Errorf("insert ids %v do not increase", ids)
		}
	}
	// The fixture rows are untouched, and a list past them shows the new rows.
	if r := get(t, base+"/users?after=995&limit=5"); r.body != listUsers(995, 5) {
		t.Errorf("GET /users?after=995&limit=5 after inserts = %s", r.body)
	}
	if r := get(t, base+fmt.Sprintf("/users?after=%d&limit=1000", testRows)); r.status != http.StatusOK || strings.Count(r.body, `"id":`) != len(ids) {
		t.Errorf("GET /users past the fixtures = %d %.300s, want the %d inserted rows", r.status, r.body, len(ids))
	}
	for _, body := range []string{``, `{}`, `[]`, `null`, `{"name":""}`, `{"name":null}`, `{"name":1}`, `{"name":"x","admin":1}`,
		`{"Name":"x"}`, `{"name":"` + strings.Repeat("x", 65) + `"}`, "{\"name\":\"\xff\"}", `{"name":"\ud800"}`, `{"name":"x"}x`} {
		r := mustPost(t, base+"/users", body)
		if r.status != http.StatusBadRequest || !isJSONError(r) {
			t.Errorf("POST /users %.40q = %d %s, want 400 with a JSON error", body, r.status, r.body)
		}
	}
	if n := countRows(t, admin, "SELECT COUNT(*) FROM users"); n != int64(testRows+len(ids)) {
		t.Errorf("%d rows after %d inserts and the bad bodies, want %d", n, len(ids), testRows+len(ids))
	}

	// update: the counter as it grows, 404, 400, 405.
	before := countRows(t, admin, "SELECT visits FROM users WHERE id = 42")
	for i := int64(1); i <= 2; i++ {
		r := mustPost(t, base+"/users/42/visits", "")
		if want := fmt.Sprintf(`{"id":42,"visits":%d}`, before+i); r.status != http.StatusOK || r.ctype != "application/json" || r.body != want {
			t.Errorf("POST /users/42/visits = %d %q %s, want 200 %s", r.status, r.ctype, r.body, want)
		}
	}
	if r := mustPost(t, base+"/users/4294967295/visits", ""); r.status != http.StatusNotFound || !isJSONError(r) {
		t.Errorf("POST /users/4294967295/visits = %d %s, want 404", r.status, r.body)
	}
	for _, id := range []string{"0", "abc", "-1", "01", "4294967296", "1%27"} {
		if r := mustPost(t, base+"/users/"+id+"/visits", ""); r.status != http.StatusBadRequest || !isJSONError(r) {
			t.Errorf("POST /users/%s/visits = %d %s, want 400", id, r.status, r.body)
		}
	}
	if r := get(t, base+"/users/42/visits"); r.status != http.StatusMethodNotAllowed || !isJSONError(r) {
		t.Errorf("GET /users/42/visits = %d %s, want 405", r.status, r.body)
	}
	if r := get(t, base+"/users/42"); r.body != userBody(42) {
		t.Errorf("GET /users/42 after visits = %s, want %s", r.body, userBody(42))
	}
}

// visitConcurrently sends k visits of user id from clients at once and returns how
// many succeeded and the counter each answer reported.
func visitConcurrently(base string, id, clients, k int) (ok int, seen []int, err error) {
	jobs := make(chan struct{}, k)
	for range k {
		jobs <- struct{}{}
	}
	close(jobs)
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				r, err := post(context.Background(), fmt.Sprintf("%s/users/%d/visits", base, id), "")
				var v struct{ ID, Visits int }
				if err == nil && (r.status != http.StatusOK || json.Unmarshal([]byte(r.body), &v) != nil || v.ID != id) {
					err = fmt.Errorf("POST /users/%d/visits = %d %s", id, r.status, r.body)
				}
				mu.Lock()
				if err != nil {
					if first == nil {
						first = err
					}
				} else {
					ok++
					seen = append(seen, v.Visits)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return ok, seen, first
}

// checkNoLostUpdate sends opsVisits visits of one user from opsClients clients: the
// column must gain exactly one per successful request, and the answers must report
// every value from the old counter + 1 to the new one, each once.
func checkNoLostUpdate(t *testing.T, base string, admin *sql.DB, id int) {
	t.Helper()
	q := "SELECT visits FROM users WHERE id = " + strconv.Itoa(id)
	before := countRows(t, admin, q)
	ok, seen, err := visitConcurrently(base, id, opsClients, opsVisits)
	if err != nil {
		t.Errorf("%d of %d visits at %d clients failed; the first: %v", opsVisits-ok, opsVisits, opsClients, err)
	}
	after := countRows(t, admin, q)
	if after-before != int64(ok) {
		t.Errorf("LOST UPDATES: %d successful visits at %d clients, visits of user %d went %d -> %d (+%d): %d lost",
			ok, opsClients, id, before, after, after-before, int64(ok)-(after-before))
	}
	sort.Ints(seen)
	for i, v := range seen {
		if int64(v) != before+int64(i)+1 {
			t.Errorf("the answers' counters %v… are not %d..%d, each once", seen[:min(len(seen), 20)], before+1, after)
			break
		}
	}
}

func countRows(t *testing.T, admin *sql.DB, query string) int64 {
	t.Helper()
	var n int64
	if err := admin.QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func globalStatus(t *testing.T, admin *sql.DB) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, k := range comVars {
		var name string
		var v int64
		if err := admin.QueryRow("SHOW GLOBAL STATUS LIKE '"+k+"'").Scan(&name, &v); err != nil {
			t.Fatalf("SHOW GLOBAL STATUS LIKE %s: %v", k, err)
		}
		out[k] = v
	}
	return out
}

// opRequest is request i of one op in a capture: list, insert and update all answer
// 2xx on the fixture table.
func opRequest(ctx context.Context, base, op string, i int) error {
	var r reply
	var err error
	switch op {
	case "list":
		r, err = fetch(ctx, http.MethodGet, fmt.Sprintf("%s/users?after=%d&limit=10", base, (i*97)%(testRows-10)))
	case "insert":
		r, err = post(ctx, base+"/users", fmt.Sprintf(`{"name":"inserted #%d"}`, i))
	case "update":
		r, err = post(ctx, fmt.Sprintf("%s/users/%d/visits", base, 1+(i*379)%testRows), "")
	}
	if err == nil && r.status/100 != 2 {
		err = fmt.Errorf("%s %d = %d %s", op, i, r.status, r.body)
	}
	return err
}

// opCounts is what one op costs per request, as captured.
type opCounts struct {
	log, wire, com map[string]float64
	queries        []string
}

// captureOp warms op up at the pool's concurrency (every connection opened and its
// statements prepared), then counts n sequential requests of it: the general log and
// the wire through proxy (roundtrip.Capture) and the Com_ counters of SHOW GLOBAL
// STATUS, which name the statements (BEGIN, COMMIT, SELECT, INSERT, UPDATE). It logs
// one "ops-count" line and checks what holds for every layer.
func captureOp(t *testing.T, admin *sql.DB, proxy *roundtrip.Proxy, v matrix.Variant, base, op string, n int) opCounts {
	t.Helper()
	ctx := context.Background()
	warm := func(ctx context.Context) error {
		var wg sync.WaitGroup
		errs := make(chan error, 4*v.Pool)
		for w := range 2 * v.Pool {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 2 {
					if err := opRequest(ctx, base, op, 5000+w*2+i); err != nil {
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
	if err := warm(ctx); err != nil {
		t.Fatalf("warm-up of %s: %v", op, err)
	}
	// Before the capture, whose general log would list these SHOW statements: warm-up
	// commands still on the way (a Close stmt, a Quit) move none of these counters.
	s0 := globalStatus(t, admin)
	res, err := roundtrip.Capture(ctx, admin, n, func(ctx context.Context) error {
		for i := range n {
			if err := opRequest(ctx, base, op, i); err != nil {
				return err
			}
		}
		return nil
	}, roundtrip.WithProxy(proxy))
	if err != nil {
		t.Fatal(err)
	}
	s1 := globalStatus(t, admin) // after Capture's quiesce: every command has landed
	c := opCounts{log: res.PerRequest(), wire: res.WirePerRequest(), com: map[string]float64{}, queries: res.Queries}
	for _, k := range comVars {
		c.com[strings.TrimPrefix(k, "Com_")] = float64(s1[k]-s0[k]) / float64(n)
	}
	// Capture's own statements are not the target's; SHOW GLOBAL STATUS moves none of these.
	c.com["select"] = float64(res.Status["Com_select"]) / float64(n)
	t.Logf("ops-count %s op=%s log=%v wire=%v com=%v statements=%q", v.Key(), op, c.log, c.wire, c.com, c.queries)

	checkMatrixOp(t, v, op, c)

	// The same for every layer: the wire sees what the log sees (and the pings), each
	// request runs its statement, update is one transaction that commits.
	for k, w := range c.wire {
		if k != "Ping" && w != c.log[k] {
			t.Errorf("%s: wire %s = %v, log %v", op, k, w, c.log[k])
		}
	}
	switch op {
	case "list":
		if c.com["select"] != 1 {
			t.Errorf("list: Com_select = %v per request, want 1", c.com["select"])
		}
	case "insert":
		if c.com["insert"] != 1 || c.com["update"] != 0 {
			t.Errorf("insert: Com_insert = %v, Com_update = %v per request, want 1 and 0", c.com["insert"], c.com["update"])
		}
	case "update":
		if c.com["begin"] != 1 || c.com["commit"] != 1 || c.com["rollback"] != 0 || c.com["update"] != 1 || c.com["select"] < 1 {
			t.Errorf("update: %v per request, want one BEGIN, one SELECT … FOR UPDATE, one UPDATE, one COMMIT", c.com)
		}
		locking := false
		for _, q := range c.queries {
			locking = locking || strings.Contains(strings.ToUpper(q), "FOR UPDATE")
		}
		if !locking && v.Stmt != "prepared" { // prepared: the SELECT is prepared once, before the capture
			t.Errorf("update: no statement holds FOR UPDATE: %q", c.queries)
		}
	}
	return c
}

// matrixOps are the matrix's ops these tests send: their list asks for 10 rows.
var matrixOps = map[string]string{"list": "list10", "insert": "insert", "update": "update"}

// checkMatrixOp checks an op's commands per request on the wire against what
// runners/matrix.yaml's rules expect of the variant at that op, which every run checks
// again; with Composer's newer Illuminate under php/vendor/ the libraries' own
// statements may differ, and are not asserted (php/README.md).
func checkMatrixOp(t *testing.T, v matrix.Variant, op string, c opCounts) {
	t.Helper()
	if v.Lang == "php" && composerIlluminate() {
		return
	}
	m, err := repoMatrix()
	if err != nil {
		t.Fatal(err)
	}
	v.Op = matrixOps[op]
	want := m.Expected(v)
	for k := range maps.Keys(c.wire) {
		if _, ok := want[k]; !ok && c.wire[k] != 0 {
			want[k] = 0
		}
	}
	for k, n := range want {
		if c.wire[k] != float64(n) {
			t.Errorf("%s: wire %v per request, the matrix expects %v", v.Key(), c.wire, m.Expected(v))
			return
		}
	}
}

// opsFull runs the ops tests on every variant (DBBENCH_TEST=full, as `make test-full`);
// make test's shortened form takes each layer and server once, at persistent
// connections, plus the raw layer per request: the same code paths, a fifth of the time.
var opsFull = os.Getenv("DBBENCH_TEST") == "full"

// opsSample is every variant with opsFull, else the first of each layer and server at
// persistent connections and the raw layer's first per request.
func opsSample(vs []matrix.Variant) []matrix.Variant {
	if opsFull {
		return vs
	}
	seen := map[string]bool{}
	var out []matrix.Variant
	for _, v := range vs {
		k := v.Server + "/" + v.Layer + "/" + v.Conn
		if seen[k] || v.Conn != "persistent" && v.Layer != "raw" {
			continue
		}
		seen[k] = true
		out = append(out, v)
	}
	return out
}

// TestGoOps checks list, insert and update on every Go database variant: the contract,
// no lost update at 64 clients, and what each op costs in MySQL commands.
func TestGoOps(t *testing.T) {
	db, _, admin := sharedDB(t)
	proxy, err := roundtrip.StartProxyOn("127.0.0.1", dbtest.ConfigOf(t, db).Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	dsnFile := viaProxy(t, db, proxy.Addr())
	const n = 10
	for _, v := range opsSample(goDBVariants(t, 4)) {
		t.Run(v.Key(), func(t *testing.T) {
			reloadFixtures(t, admin)
			tg := startGoTarget(t, v, dsnFile)
			checkRelated(t, tg.URL, specOf(t, v).Layer)
			checkOps(t, tg.URL, admin)
			checkNoLostUpdate(t, tg.URL, admin, 7)
			for _, op := range []string{"list", "insert", "update"} {
				captureOp(t, admin, proxy, v, tg.URL, op, n)
			}
		})
	}
}

// The update check catches a layer that loses updates: gotarget's leak test build with
// DBBENCH_LEAK=lostupdate:1 reads the counter without a lock, and at 64 clients on one
// user visits go missing.
func TestGoLostUpdateIsCaught(t *testing.T) {
	_, dsnFile, admin := sharedDB(t)
	dir := t.TempDir()
	if out, err := revision.GoBuild(context.Background(), "../../..", filepath.Join(dir, GoBinary), "leak").CombinedOutput(); err != nil {
		t.Fatalf("go build -tags leak: %v\n%s", err, out)
	}
	t.Setenv("DBBENCH_LEAK", "lostupdate:1")
	reloadFixtures(t, admin)
	v := goVariant("raw", "interpolate", "persistent", 8)
	tg, err := Start(context.Background(), specOf(t, v), Options{DSNFile: dsnFile, BinDir: dir, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client.CloseIdleConnections()
		if err := tg.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	const id = 9
	before := countRows(t, admin, "SELECT visits FROM users WHERE id = "+strconv.Itoa(id))
	ok, _, err := visitConcurrently(tg.URL, id, opsClients, opsVisits)
	if err != nil {
		t.Fatal(err)
	}
	gained := countRows(t, admin, "SELECT visits FROM users WHERE id = "+strconv.Itoa(id)) - before
	t.Logf("planted lost update: %d successful visits at %d clients, visits +%d: %d lost", ok, opsClients, gained, int64(ok)-gained)
	if ok != opsVisits || gained >= int64(ok) {
		t.Fatalf("the planted read-then-write without a lock lost no update (%d requests, +%d): the check would not catch it", ok, gained)
	}
}

// TestPHPOps checks list, insert and update on every PHP database variant, through the
// real servers (nginx + php-fpm, resident workers): the contract, no lost update at 64
// clients, and what each op costs in MySQL commands.
func TestPHPOps(t *testing.T) {
	db, _, admin := sharedDB(t)
	proxy, err := roundtrip.StartProxyOn("127.0.0.1", dbtest.ConfigOf(t, db).Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	dsnFile := viaProxy(t, db, proxy.Addr())
	const n = 10
	m, err := repoMatrix()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range opsSample(phpVariants(t, 3)) {
		if !m.Langs["php"].Layers[v.Layer].DB {
			continue
		}
		t.Run(v.Key(), func(t *testing.T) {
			reloadFixtures(t, admin)
			tg := startPHPTarget(t, v, dsnFile, "")
			checkRelated(t, tg.URL, m.Langs["php"].Layers[v.Layer])
			checkOps(t, tg.URL, admin)
			checkNoLostUpdate(t, tg.URL, admin, 7)
			for _, op := range []string{"list", "insert", "update"} {
				captureOp(t, admin, proxy, v, tg.URL, op, n)
			}
		})
	}
}

// assertOpsUnavailable checks, with the database gone, that list, insert and update
// answer 503 with the contract's JSON error, and bad input still 400.
func assertOpsUnavailable(t *testing.T, base string) {
	t.Helper()
	for _, r := range []struct{ method, path, body string }{
		{http.MethodGet, "/users?after=5&limit=10", ""},
		{http.MethodPost, "/users", `{"name":"during an outage"}`},
		{http.MethodPost, "/users/7/visits", ""},
	} {
		var got reply
		var err error
		if r.method == http.MethodGet {
			got, err = fetch(context.Background(), r.method, base+r.path)
		} else {
			got, err = post(context.Background(), base+r.path, r.body)
		}
		if err != nil {
			t.Fatal(err)
		}
		if got.status != http.StatusServiceUnavailable || got.body != `{"error":"database unavailable"}` {
			t.Errorf("%s %s with the database gone = %d %s, want 503 {\"error\":\"database unavailable\"}", r.method, r.path, got.status, got.body)
		}
	}
	if r := mustPost(t, base+"/users", `{"name":""}`); r.status != http.StatusBadRequest {
		t.Errorf("bad body with the database gone = %d, want 400", r.status)
	}
}
