package matrix

import (
	"slices"
	"strings"
	"testing"
)

// twoProtocols is a matrix whose layers read MySQL, PostgreSQL or both, one with its
// modes per protocol.
const twoProtocols = `langs:
  go:
    baseline: {mysql: raw, postgres: pg}
    servers: {s: {launcher: l, pool: p}}
    layers:
      raw: {kind: raw, library: r, version_of: m, stmt: [prepare, interpolate], conn: [persistent]}
      pg:  {kind: raw, library: p, version_of: m, stmt: [cache_statement, simple_protocol], conn: [persistent], dbs: [pg15], stmt_ref: cache_statement}
      orm: {kind: orm, library: o, version_of: m, stmt: {mysql: [prepare, interpolate], postgres: [cache_statement, simple_protocol]},
            stmt_ref: {postgres: cache_statement}, conn: [persistent]}
dbs:
  mariadb: {about: a}
  mysql:   {about: b}
  pg15:    {about: c, protocol: postgres}
presets:
  p: {include: [".*"], pools: {go: [4]}, connections: 1, warmup: 1s, duration: 1s, reps: 1, budget: 1m}
`

// A layer that names its modes per protocol offers each mode on that protocol's
// databases only, compares them with that protocol's reference, and its language's
// baseline is the protocol's.
func TestStmtModesPerProtocol(t *testing.T) {
	m, err := Parse("m.yaml", []byte(twoProtocols))
	if err != nil {
		t.Fatal(err)
	}
	l := m.Langs["go"]
	orm := l.Layers["orm"]
	if got := m.ReadBy(orm); !slices.Equal(got, []string{"mariadb", "mysql", "pg15"}) {
		t.Errorf("orm reads %v, want every database of both protocols", got)
	}
	for _, c := range []struct {
		stmt, db string
		want     bool
	}{{"prepare", "mysql", true}, {"prepare", "pg15", false}, {"cache_statement", "pg15", true}, {"cache_statement", "mariadb", false}} {
		if got := m.Offers(orm, c.stmt, c.db); got != c.want {
			t.Errorf("Offers(orm, %s, %s) = %v, want %v", c.stmt, c.db, got, c.want)
		}
	}
	if got := orm.Stmt; !slices.Equal(got, []string{"prepare", "interpolate", "cache_statement", "simple_protocol"}) {
		t.Errorf("orm's union of modes = %v", got)
	}
	if orm.RefOn("mysql") != "prepare" || orm.RefOn("postgres") != "cache_statement" {
		t.Errorf("orm's references: mysql %s, postgres %s", orm.RefOn("mysql"), orm.RefOn("postgres"))
	}
	if l.Baseline != "raw" || l.BaselineOn("mysql") != "raw" || l.BaselineOn("postgres") != "pg" {
		t.Errorf("baselines: %s, mysql %s, postgres %s", l.Baseline, l.BaselineOn("mysql"), l.BaselineOn("postgres"))
	}
	// Each mode comes once, on the first database that offers it.
	var keys []string
	for _, v := range m.All(map[string][]int{"go": {4}}) {
		if v.Layer == "orm" {
			keys = append(keys, v.Stmt+"@"+m.DBName(v))
		}
	}
	if want := []string{"prepare@mariadb", "interpolate@mariadb", "cache_statement@pg15", "simple_protocol@pg15"}; !slices.Equal(keys, want) {
		t.Errorf("All lists orm as %v, want %v", keys, want)
	}
	err = m.Check(Variant{Lang: "go", Server: "s", Layer: "orm", Stmt: "prepare", Conn: "persistent", Pool: 4, Database: "pg15"})
	if err == nil || !strings.Contains(err.Error(), `has no stmt "prepare" on pg15 (want one of cache_statement, simple_protocol)`) {
		t.Errorf("a MySQL mode on PostgreSQL: %v", err)
	}
}

// A reference must be one of the layer's modes on its protocol, and only protocols
// name modes.
func TestStmtModesPerProtocolRefuseNonsense(t *testing.T) {
	for _, tc := range []struct{ name, old, new, want string }{
		{"reference of another protocol", "stmt_ref: {postgres: cache_statement}", "stmt_ref: {postgres: prepare}",
			`stmt_ref of layer orm: "prepare" is not one of its stmt (cache_statement, simple_protocol)`},
		{"unknown protocol", "postgres: [cache_statement, simple_protocol]}", "postgre: [cache_statement, simple_protocol]}",
			`unknown key "postgre" in stmt of layer orm (allowed: mysql, postgres)`},
		{"baseline of no raw layer", "postgres: pg}", "postgres: orm}", `baseline of go is "orm": want a layer of kind raw`},
		{"baseline without mysql's", "baseline: {mysql: raw, postgres: pg}", "baseline: {postgres: pg}", `baseline of go: name the mysql protocol's too`},
		{"baseline of the other protocol", "postgres: pg}", "postgres: raw}", `baseline of go on postgres is raw, which reads no database of that protocol`},
		{"one reference for both, offered on one", "stmt_ref: {postgres: cache_statement}", "stmt_ref: cache_statement",
			`stmt_ref of layer orm: "cache_statement" is not one of its stmt (prepare, interpolate)`},
	} {
		_, err := Parse("m.yaml", []byte(strings.Replace(twoProtocols, tc.old, tc.new, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v\nwant it to contain %s", tc.name, err, tc.want)
		}
	}
}

// The repository's Go layers on PostgreSQL: every one offers pgx's modes (bun its
// interpolation alone), is compared with pgx's raw layer there, and with pgx's default.
func TestRepoGoLayersOnPostgres(t *testing.T) {
	m := loadRepoMatrix(t)
	l := m.Langs["go"]
	if l.BaselineOn("postgres") != "pgx" || l.BaselineOn("mysql") != "raw" {
		t.Errorf("go's baselines: mysql %s, postgres %s", l.BaselineOn("mysql"), l.BaselineOn("postgres"))
	}
	for _, name := range []string{"squirrel", "gorm", "sqlx", "ent"} {
		layer := l.Layers[name]
		if !slices.Equal(layer.StmtsOn("postgres"), l.Layers["pgx"].Stmt) || layer.RefOn("postgres") != "cache_statement" {
			t.Errorf("%s on PostgreSQL: modes %v, reference %s", name, layer.StmtsOn("postgres"), layer.RefOn("postgres"))
		}
	}
	if got := l.Layers["bun"].StmtsOn("postgres"); !slices.Equal(got, []string{"simple_protocol"}) {
		t.Errorf("bun on PostgreSQL: %v, want simple_protocol alone", got)
	}
	if p := l.Layers["pgxpool"]; !slices.Equal(m.ReadBy(p), []string{"postgres", "pgbouncer", "pgbouncer-118", "pgbouncer-off"}) || !slices.Equal(p.StmtsOn("postgres"), l.Layers["pgx"].Stmt) {
		t.Errorf("pgxpool reads %v in %v, want PostgreSQL (and behind PgBouncer) in pgx's modes", m.ReadBy(p), p.StmtsOn("postgres"))
	}
	bun := Variant{Lang: "go", Server: "nethttp", Layer: "bun", Stmt: "cache_statement", Conn: "persistent", Pool: 4, Database: "postgres"}
	if err := m.Check(bun); err == nil || !strings.Contains(err.Error(), "only simple_protocol sends what bun means") {
		t.Errorf("bun at cache_statement: %v", err)
	}
}
