package target

import (
	"context"
	"database/sql"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"dbbench/fixtures"
	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/dbtest"
	"dbbench/runners/measure/roundtrip"
)

// pgVariants are the variants of lang offered on PostgreSQL, at pool, each on
// PostgreSQL (m.All puts a layer that reads MySQL too on MySQL's first server).
func pgVariants(t *testing.T, m *matrix.Matrix, lang string, pool int) []matrix.Variant {
	var out []matrix.Variant
	for _, v := range m.All(map[string][]int{lang: {pool}}) {
		if l := m.Langs[lang].Layers[v.Layer]; v.Lang == lang && l.DB && m.Offers(l, v.Stmt, "postgres") {
			out = append(out, m.OnDB(v, "postgres"))
		}
	}
	if len(out) == 0 {
		t.Fatalf("the matrix has no %s variant on PostgreSQL", lang)
	}
	return out
}

// Every Go variant on PostgreSQL against an embedded PostgreSQL 15, through the
// counting proxy: the HTTP contract of get, list, insert and update on the fixture
// table, no lost update at 64 clients (each layer's first mode pooled, pgx's default;
// every variant with DBBENCH_TEST=full), and get's frontend messages per request on the
// wire as matrix.yaml expects them (the run checks them again). make test runs every
// mode of the drivers' own layers (pgx, pq) and, of the layers above pgx, which send
// what pgx sends for get, the first mode pooled and simple_protocol per request;
// DBBENCH_TEST=full every variant.
func TestGoOnPostgres(t *testing.T) {
	admin, proxy, dsnFile := startCountedPostgres(t)
	m, err := repoMatrix()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, v := range pgVariants(t, m, "go", 4) {
		first := v.Stmt == m.Langs["go"].Layers[v.Layer].StmtsOn("postgres")[0] && v.Conn == "persistent"
		driver := v.Layer == "pgx" || v.Layer == "pq"
		if !opsFull && !driver && !first && (v.Stmt != "simple_protocol" || v.Conn != "per-request") {
			continue
		}
		t.Run(v.Key(), func(t *testing.T) {
			t.Cleanup(func() { // after the target stops (cleanups run last first)
				if err := fixtures.LoadPostgres(ctx, admin, testRows); err != nil {
					t.Errorf("reload fixtures: %v", err)
				}
			})
			tg := startGoTarget(t, v, dsnFile)
			for _, id := range []uint32{1, 500, testRows} {
				if r := get(t, tg.URL+"/users/"+strconv.Itoa(int(id))); r.status != http.StatusOK || r.body != userBody(id) {
					t.Errorf("GET /users/%d = %d %s, want %s", id, r.status, r.body, userBody(id))
				}
			}
			assertError(t, tg.URL+"/users/4294967295", http.StatusNotFound)
			assertError(t, tg.URL+"/users/abc", http.StatusBadRequest)
			before, err := ReadPool(ctx, tg.AdminURL)
			if err != nil {
				t.Fatal(err)
			}
			countPgGet(t, ctx, m, v, admin, proxy, tg.URL)
			// Each get's connection hold is timed by the time its answer arrives (the run
			// reads the counters after each request, one at a time).
			if after, err := ReadPool(ctx, tg.AdminURL); err != nil || after.Holds-before.Holds < 11 || after.HeldDuration <= before.HeldDuration {
				t.Errorf("pool counters over 11 gets: %+v then %+v (%v): want 11 holds timed or more", before, after, err)
			}
			// The ops' code is the same in every mode and per request: make test checks
			// the default mode's, DBBENCH_TEST=full every variant's (opsSample).
			if first || opsFull {
				checkOps(t, tg.URL, admin)
				checkNoLostUpdate(t, tg.URL, admin, 7)
			}
		})
	}
}

// startCountedPostgres starts an embedded PostgreSQL with the test's fixtures and the
// counting proxy in front of it, and writes the proxy's URL to a DSN file.
func startCountedPostgres(t *testing.T) (admin *sql.DB, proxy *roundtrip.Proxy, dsnFile string) {
	t.Helper()
	pg := dbtest.StartPostgres(t, testRows)
	admin, err := pg.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	proxy, err = roundtrip.StartPostgresProxyOn("127.0.0.1", pg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	line, err := roundtrip.RewriteDSN(pg.URL(), proxy.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if dsnFile, err = writeDSN(t.TempDir(), "dsn", line); err != nil {
		t.Fatal(err)
	}
	return admin, proxy, dsnFile
}

// Every PHP variant on PostgreSQL (PDO's pgsql driver), as TestGoOnPostgres does Go's:
// the HTTP contract, get's messages per request as matrix.yaml expects them, the ops and
// no lost update at 64 clients. make test samples: PDO's native prepare under php-fpm
// with the ops, Eloquent's connect-time statements, DBAL's unnamed statements (Doctrine
// ORM) per request, a resident worker; DBBENCH_TEST=full runs every variant with its ops.
func TestPHPOnPostgres(t *testing.T) {
	admin, proxy, dsnFile := startCountedPostgres(t)
	m, err := repoMatrix()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sample := map[string]bool{
		"fpm/raw/prepare/persistent":               true,
		"fpm/eloquent/prepare/persistent":          false,
		"fpm/doctrine/prepare/per-request":         false,
		"worker/illuminate/interpolate/persistent": false,
	}
	for _, v := range pgVariants(t, m, "php", 4) {
		ops, sampled := sample[v.Server+"/"+v.Layer+"/"+v.Stmt+"/"+v.Conn]
		if !sampled && !opsFull {
			continue
		}
		t.Run(v.Key(), func(t *testing.T) {
			t.Cleanup(func() {
				if err := fixtures.LoadPostgres(ctx, admin, testRows); err != nil {
					t.Errorf("reload fixtures: %v", err)
				}
			})
			proxy.Reset()
			tg := startPHPTarget(t, v, dsnFile, t.TempDir())
			warmPHP(t, tg, v, proxy) // every child connected: get's count is steady state
			if r := get(t, tg.URL+"/users/500"); r.status != http.StatusOK || r.body != userBody(500) {
				t.Errorf("GET /users/500 = %d %s, want %s", r.status, r.body, userBody(500))
			}
			assertError(t, tg.URL+"/users/4294967295", http.StatusNotFound)
			assertError(t, tg.URL+"/users/abc", http.StatusBadRequest)
			countPgGet(t, ctx, m, v, admin, proxy, tg.URL)
			if ops || opsFull {
				checkOps(t, tg.URL, admin)
				checkNoLostUpdate(t, tg.URL, admin, 7)
			}
		})
	}
}

// countPgGet sends 10 gets one at a time under roundtrip.CapturePostgres and checks
// the wire's messages per request against the matrix, and that the server ran one
// SELECT per request.
func countPgGet(t *testing.T, ctx context.Context, m *matrix.Matrix, v matrix.Variant, admin *sql.DB, proxy *roundtrip.Proxy, base string) {
	t.Helper()
	get(t, base+"/users/2") // the statement cache and the pool warm
	const n = 10
	res, err := roundtrip.CapturePostgres(ctx, admin, n, func(context.Context) error {
		for id := uint32(3); id < 3+n; id++ {
			if r := get(t, base+"/users/"+strconv.Itoa(int(id))); r.status != http.StatusOK {
				t.Errorf("GET /users/%d = %d", id, r.status)
			}
		}
		return nil
	}, proxy)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	for k, c := range m.Expected(v) {
		want[k] = int64(c) * n
	}
	t.Logf("%s: wire %v, server %v in %d requests", v.Key(), res.Wire, res.Statements, n)
	if !maps.Equal(res.Wire, want) {
		t.Errorf("%s: %d gets sent %v on the wire, the matrix expects %v", v.Key(), n, res.Wire, want)
	}
	if res.Statements["SELECT"] != n {
		t.Errorf("%s: the server ran %v for %d gets, want one SELECT each", v.Key(), res.Statements, n)
	}
}

// A PHP target's 503 has its cause in the target's log; Said finds it (the run quotes it
// in an invalid variant's reason), scrubbed of the password.
func TestPHPTargetSaysItsDatabaseError(t *testing.T) {
	const pw = "Xq7-never-printed"
	dsnFile, err := writeDSN(t.TempDir(), "dsn", "postgres://dbbench:"+pw+"@127.0.0.1:1/dbbench?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	for _, server := range []string{"fpm", "worker"} {
		v := matrix.Variant{Lang: "php", Server: server, Layer: "raw", Stmt: "interpolate", Conn: "persistent", Pool: 1, Database: "postgres"}
		tg := startPHPTarget(t, v, dsnFile, t.TempDir())
		assertError(t, tg.URL+"/users/1", http.StatusServiceUnavailable)
		var said string
		for range 40 { // the log line lands a moment after the answer
			if said = tg.Said(); said != "" {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if !strings.Contains(said, "GET /users/1: database error: ") || !strings.Contains(said, "127.0.0.1") || strings.Contains(said, pw) {
			t.Errorf("%s: Said() = %q, want the connection's failure without the password", server, said)
		}
	}
}
