package target

import (
	"context"
	"database/sql"
	"maps"
	"net/http"
	"strconv"
	"testing"

	"dbbench/fixtures"
	"dbbench/runners/dbtest"
	"dbbench/runners/matrix"
	"dbbench/runners/roundtrip"
)

// pgVariants are the Go variants of the matrix that read PostgreSQL, at pool.
func pgVariants(t *testing.T, m *matrix.Matrix, pool int) []matrix.Variant {
	var out []matrix.Variant
	for _, v := range m.All(map[string][]int{"go": {pool}}) {
		if v.Lang == "go" && m.DBs[m.DBName(v)].Protocol == "postgres" {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		t.Fatal("the matrix has no Go variant on PostgreSQL")
	}
	return out
}

// Every Go variant on PostgreSQL against an embedded PostgreSQL 15, through the
// counting proxy: the HTTP contract of get, list, insert and update on the fixture
// table, no lost update at 64 clients (pgx's default mode pooled; every variant with
// DBBENCH_TEST=full), and get's frontend messages per request on the wire as
// matrix.yaml expects them (the run checks them again).
func TestGoOnPostgres(t *testing.T) {
	pg := dbtest.StartPostgres(t, testRows)
	admin, err := pg.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	proxy, err := roundtrip.StartPostgresProxyOn("127.0.0.1", pg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	line, err := roundtrip.RewriteDSN(pg.URL(), proxy.Addr())
	if err != nil {
		t.Fatal(err)
	}
	dsnFile, err := writeDSN(t.TempDir(), "dsn", line)
	if err != nil {
		t.Fatal(err)
	}
	m, err := repoMatrix()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, v := range pgVariants(t, m, 4) {
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
			countPgGet(t, ctx, m, v, admin, proxy, tg.URL)
			// The ops' code is the same in every mode and per request: make test checks
			// the default mode's, DBBENCH_TEST=full every variant's (opsSample).
			if v.Stmt == "cache_statement" && v.Conn == "persistent" || opsFull {
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
