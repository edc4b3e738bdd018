package report

import (
	"strings"
	"testing"

	"dbbench/dsn/protocol"
	"dbbench/runners/define/matrix"
	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// The pooler matrix: a row per variant measured direct, a column per pooler; a cell
// that failed gives the database's error as the driver printed it, one that worked its
// ratio to direct and the counts at client, pooler and server.
func TestPoolerGridGivesWorksOrTheErrorAndTheCounts(t *testing.T) {
	variant := func(stmt, db string) *results.Variant {
		return &results.Variant{
			Variant:       matrix.Variant{Lang: "go", Server: "nethttp", Layer: "pgx", Stmt: stmt, Conn: "persistent", Pool: 64, Database: db},
			DatabaseTitle: dbTitle(t, db),
			DB:            true,
			Key:           "lang=go/server=nethttp/layer=pgx/stmt=" + stmt + "/conn=persistent/pool=64/db=" + db,
			Roundtrips:    &results.Roundtrips{Requests: 100, Protocol: protocol.Postgres, Wire: map[string]float64{"Bind": 1, "Execute": 1, "Sync": 1}, Statements: map[string]float64{"SELECT": 1}},
		}
	}
	direct, through, old := variant("cache_statement", "postgres"), variant("cache_statement", "pgbouncer"), variant("cache_statement", "pgbouncer-118")
	through.Roundtrips.Pooler = map[string]float64{"server_parse": 0.01, "bind": 1, "client_parse": 0}
	old.Roundtrips = nil
	old.InvalidReason = `round-trip warm-up: get id 3 = 503; the target's last database error: GET /users/3: database error: ERROR: prepared statement \"stmtcache_1\" already exists (SQLSTATE 42P05)`
	run := &results.Run{Variants: []*results.Variant{direct, through, old}, Environment: map[string]string{
		results.EnvKey("pooler", "pgbouncer"):     "PgBouncer 1.24.1, pool_mode = transaction, pool_size = 20",
		results.EnvKey("pooler", "pgbouncer-118"): "PgBouncer 1.18.0, pool_mode = transaction, pool_size = 20",
	}}
	d := load(judged(t, run))
	fs := []finding{{Question: questions.DB, Base: direct, Other: through,
		QPS: estimate{Judged: results.Judged{Estimate: stats.Estimate{Value: 0.69, Lo: 0.67, Hi: 0.71, N: 8, Confidence: 0.95}}, OK: true}}}
	g := d.poolerGrid(fs)
	if g == nil {
		t.Fatal("no pooler grid for a run through two poolers")
	}
	if got := strings.Join(g.Head, " | "); got != "variant | direct | PgBouncer | PgBouncer 1.18" {
		t.Errorf("head %q", got)
	}
	if len(g.Rows) != 1 {
		t.Fatalf("%d rows, want 1 (the variant direct)", len(g.Rows))
	}
	cells := g.Rows[0]
	if got, want := strings.Join(cells[2].Lines, " · "), "QPS 0.69× [0.67, 0.71] · client: Bind 1, Execute 1, Sync 1 · pooler: named Parse 0 from the client, 0.01 to the server; Bind 1 · server: SELECT 1"; got != want {
		t.Errorf("through 1.24:\n%s\nwant\n%s", got, want)
	}
	if got, want := strings.Join(cells[3].Lines, " "), `fails: ERROR: prepared statement "stmtcache_1" already exists (SQLSTATE 42P05)`; got != want {
		t.Errorf("through 1.18:\n%s\nwant\n%s", got, want)
	}
	if (&data{run: &results.Run{Variants: []*results.Variant{direct}}}).poolerGrid(nil) != nil {
		t.Error("a pooler grid for a run without a pooler")
	}
}

// PDO's error is found as PHP prints it.
func TestUserErrorFindsPDOsMessage(t *testing.T) {
	reason := `verification failed: 500 {"error":"SQLSTATE[42P05]: Duplicate prepared statement: 7 ERROR:  prepared statement \"pdo_stmt_00000001\" already exists"}`
	if got := userError(reason); !strings.HasPrefix(got, "SQLSTATE[42P05]: Duplicate prepared statement") {
		t.Errorf("userError = %q", got)
	}
}

// The first screen's pooler clause: each pooler's range against direct, what failed
// through which (by SQLSTATE; one through every pooler said so), and the fastest mode
// through the first.
func TestPoolerClauseNamesRangesFailuresAndTheFastestMode(t *testing.T) {
	variant := func(stmt, db string) *results.Variant {
		return &results.Variant{
			Variant:       matrix.Variant{Lang: "go", Server: "nethttp", Layer: "pgx", Stmt: stmt, Conn: "persistent", Pool: 64, Database: db},
			DatabaseTitle: dbTitle(t, db),
			Library:       "pgx v5 (database/sql)",
			DB:            true,
			Key:           "lang=go/server=nethttp/layer=pgx/stmt=" + stmt + "/conn=persistent/pool=64/db=" + db,
		}
	}
	est := func(r, lo, hi float64) estimate {
		return estimate{Judged: results.Judged{Estimate: stats.Estimate{Value: r, Lo: lo, Hi: hi, N: 8, Confidence: 0.95}}, OK: true}
	}
	run := &results.Run{Environment: map[string]string{
		results.EnvKey("pooler", "pgbouncer"):     "PgBouncer 1.24.1",
		results.EnvKey("pooler", "pgbouncer-118"): "PgBouncer 1.18.0",
	}}
	for _, db := range []string{"postgres", "pgbouncer", "pgbouncer-118"} {
		run.Variants = append(run.Variants, variant("cache_statement", db), variant("simple_protocol", db), variant("describe_exec", db))
	}
	run.Variant("lang=go/server=nethttp/layer=pgx/stmt=cache_statement/conn=persistent/pool=64/db=pgbouncer-118").InvalidReason = "ERROR: prepared statement \"s\" already exists (SQLSTATE 42P05)"
	for _, db := range []string{"pgbouncer", "pgbouncer-118"} {
		run.Variant("lang=go/server=nethttp/layer=pgx/stmt=describe_exec/conn=persistent/pool=64/db=" + db).InvalidReason = "ERROR: unnamed prepared statement does not exist (SQLSTATE 26000)"
	}
	self := func(stmt, db string, e estimate) finding {
		return finding{Question: questions.DB, Base: variant(stmt, "postgres"), Other: variant(stmt, db), QPS: e}
	}
	fs := []finding{
		self("cache_statement", "pgbouncer", est(0.69, 0.67, 0.71)), self("simple_protocol", "pgbouncer", est(0.83, 0.81, 0.86)),
		self("simple_protocol", "pgbouncer-118", est(0.84, 0.81, 0.87)),
		{Question: questions.Stmt, Base: variant("cache_statement", "pgbouncer"), Other: variant("simple_protocol", "pgbouncer"), QPS: est(0.99, 0.97, 1.02)},
	}
	got := (&data{run: run}).poolerClause(fs)
	want := "Through a pooler (each variant against itself direct; the matrix is in the section): " +
		"PgBouncer keeps 0.69× [0.67, 0.71] (pgx cache_statement) to 0.83× [0.81, 0.86] (pgx simple_protocol); " +
		"PgBouncer 1.18 keeps 0.84× [0.81, 0.87] (pgx simple_protocol). " +
		"Fail: pgx describe_exec (26000) through every one; pgx cache_statement (42P05) through PgBouncer 1.18. " +
		"Fastest through PgBouncer: pgx at cache_statement (simple_protocol 0.99× [0.97, 1.02] of it)."
	if got != want {
		t.Errorf("pooler clause:\n%s\nwant\n%s", got, want)
	}
}

// go-sql-driver's error is found as it prints it.
func TestUserErrorFindsMySQLsMessage(t *testing.T) {
	reason := `round-trip warm-up: get id 5 = 503; the target's last database error: GET /users/5: database error: Error 1461 (42000): Can't create more than max_prepared_stmt_count statements (current value: 16382)`
	if got, want := userError(reason), "Error 1461 (42000): Can't create more than max_prepared_stmt_count statements (current value: 16382)"; got != want {
		t.Errorf("userError = %q, want %q", got, want)
	}
}
