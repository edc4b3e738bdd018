package report

import (
	"slices"
	"strings"
	"testing"

	"dbbench/runners/define/matrix"
	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// Answer 3 leads with the pool as shipped: its ratio to the tuned pool, the dials per
// request the server counted, and "a pool that churns" where it does.
func TestShippedClausesLeadWithTheDefaultsCost(t *testing.T) {
	v := func(conn string, dials float64) *results.Variant {
		return &results.Variant{
			Variant: matrix.Variant{Lang: "go", Layer: "raw", Conn: conn},
			Library: "database/sql + go-sql-driver/mysql",
			DB:      true,
			Reps:    []*results.Repetition{{Counts: map[string]float64{units.DBDials: dials}}},
		}
	}
	langs := map[string]*results.Lang{"go": {Modes: map[string]*results.ModeSetting{"persistent": {Set: "set `SetMaxIdleConns` = `SetMaxOpenConns`", Default: "2 idle"}}}}
	f := finding{Base: v("persistent", 0), Other: v("shipped", 0.09), QPS: estimate{Judged: results.Judged{Estimate: stats.Estimate{Value: 1, Lo: 0.99, Hi: 1.02, N: 8, Confidence: 0.95}}, OK: true}}
	got := shippedClauses([]finding{f}, langs)
	want := "As shipped, of the throughput with the settings named — Go (`SetMaxIdleConns` = `SetMaxOpenConns`): database/sql 1.00× [0.99, 1.02], dialling 0.09 per request: a pool that churns"
	if len(got) != 1 || got[0] != want {
		t.Errorf("clauses %q\nwant %q", got, want)
	}
	f.Other = v("shipped", 0)
	if got := shippedClauses([]finding{f}, langs); len(got) != 1 || got[0] != "As shipped, of the throughput with the settings named — Go (`SetMaxIdleConns` = `SetMaxOpenConns`): database/sql 1.00× [0.99, 1.02], dialling 0 per request" {
		t.Errorf("a pool that does not churn: %q", got)
	}
}

// A layer as shipped differs from the tuned modes in its statement mode too (Laravel
// prepares natively, a connection per request): the clause names both settings, and
// groups the layers by what a team would set.
func TestShippedClausesSayEverySettingToChange(t *testing.T) {
	v := func(library, stmt, conn string) *results.Variant {
		return &results.Variant{Variant: matrix.Variant{Lang: "php", Layer: library, Stmt: stmt, Conn: conn}, Library: library, DB: true}
	}
	langs := map[string]*results.Lang{"php": {Modes: map[string]*results.ModeSetting{
		"interpolate": {Set: "set `PDO::ATTR_EMULATE_PREPARES => true`"}, "persistent": {Set: "set `PDO::ATTR_PERSISTENT => true`"}}}}
	qps := func(r float64) estimate {
		return estimate{Judged: results.Judged{Estimate: stats.Estimate{Value: r, Lo: r - 0.01, Hi: r + 0.01, N: 8, Confidence: 0.95}}, OK: true}
	}
	fs := []finding{
		{Base: v("PDO", "interpolate", "persistent"), Other: v("PDO", "interpolate", "per-request"), QPS: qps(0.5)},
		{Base: v("Eloquent", "interpolate", "persistent"), Other: v("Eloquent", "prepare", "per-request"), QPS: qps(0.3)},
		{Base: v("Doctrine ORM", "interpolate", "persistent"), Other: v("Doctrine ORM", "interpolate", "per-request"), QPS: qps(0.7)},
	}
	want := []string{"As shipped, of the throughput with the settings named — PHP (`PDO::ATTR_PERSISTENT => true`): PDO 0.50× [0.49, 0.51], Doctrine ORM 0.70× [0.69, 0.71]; " +
		"PHP (`PDO::ATTR_EMULATE_PREPARES => true`, `PDO::ATTR_PERSISTENT => true`): Eloquent 0.30× [0.29, 0.31]"}
	if got := shippedClauses(fs, langs); !slices.Equal(got, want) {
		t.Errorf("clauses\n%q\nwant\n%q", got, want)
	}
}

// Pools that churn are flagged in one alert, with the range of their dials; one pool
// alone in a sentence of its own; a connection per request not at all.
func TestChurnAlertGroupsThePools(t *testing.T) {
	v := func(layer, conn string, dials float64) *results.Variant {
		return &results.Variant{
			Variant: matrix.Variant{Lang: "go", Server: "nethttp", Layer: layer, Stmt: "prepare", Conn: conn, Pool: 64},
			DB:      true,
			Valid:   true,
			Reps:    []*results.Repetition{{Counts: map[string]float64{units.DBDials: dials}}},
		}
	}
	d := &data{valid: []*results.Variant{v("raw", "shipped", 0.58), v("gorm", "shipped", 0.6), v("raw", "per-request", 1), v("ent", "persistent", 0)}}
	got := d.churns()
	if len(got) != 1 || !strings.HasPrefix(got[0], "2 variants keep their connections, yet the server counted 0.58 to 0.60 new connections per request") ||
		!strings.HasSuffix(got[0], "go/nethttp/raw/prepare/shipped/pool=64, go/nethttp/gorm/prepare/shipped/pool=64.") {
		t.Errorf("alert %q", got)
	}
	d.valid = d.valid[:1]
	if got := d.churns(); len(got) != 1 || !strings.HasPrefix(got[0], "go/nethttp/raw/prepare/shipped/pool=64 keeps its connections, yet the server counted 0.58") {
		t.Errorf("one pool: %q", got)
	}
}
