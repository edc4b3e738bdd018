package report

import (
	"strings"
	"testing"

	"dbbench/dsn/protocol"
	"dbbench/runners/questions"
	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// The pooler matrix: a row per variant measured direct, a column per pooler; a cell
// that failed gives the database's error as the driver printed it, one that worked its
// ratio to direct and the counts at client, pooler and server.
func TestPoolerGridGivesWorksOrTheErrorAndTheCounts(t *testing.T) {
	variant := func(stmt, db string) *results.Variant {
		return &results.Variant{Lang: "go", Server: "nethttp", Layer: "pgx", Stmt: stmt, Conn: "persistent", Pool: 64, Database: db, DB: true,
			Key:        "lang=go/server=nethttp/layer=pgx/stmt=" + stmt + "/conn=persistent/pool=64/db=" + db,
			Roundtrips: &results.Roundtrips{Requests: 100, Protocol: protocol.Postgres, Wire: map[string]float64{"Bind": 1, "Execute": 1, "Sync": 1}, Statements: map[string]float64{"SELECT": 1}}}
	}
	direct, through, old := variant("cache_statement", "postgres"), variant("cache_statement", "pgbouncer"), variant("cache_statement", "pgbouncer-118")
	through.Roundtrips.Pooler = map[string]float64{"server_parse": 0.01, "bind": 1, "client_parse": 0}
	old.Roundtrips = nil
	old.InvalidReason = `round-trip warm-up: get id 3 = 503; the target's last database error: GET /users/3: database error: ERROR: prepared statement \"stmtcache_1\" already exists (SQLSTATE 42P05)`
	run := &results.Run{Variants: []*results.Variant{direct, through, old}, Environment: map[string]string{
		results.EnvKey("pooler", "pgbouncer"):     "PgBouncer 1.24.1, pool_mode = transaction, pool_size = 20",
		results.EnvKey("pooler", "pgbouncer-118"): "PgBouncer 1.18.0, pool_mode = transaction, pool_size = 20",
	}}
	d := &data{run: run}
	fs := []finding{{Question: questions.DB, Base: direct, Other: through,
		QPS: estimate{RatioEstimate: stats.RatioEstimate{Ratio: 0.69, Lo: 0.67, Hi: 0.71, N: 8, Confidence: 0.95}, OK: true}}}
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
	if got, want := strings.Join(cells[2].Lines, " · "), "QPS 0.69× [0.67, 0.71] · client: Bind 1, Execute 1, Sync 1 · pooler: Parse 0.01, Bind 1 to the server · server: SELECT 1"; got != want {
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
