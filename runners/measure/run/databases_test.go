package run

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"dbbench/runners/judge/questions"
	"dbbench/runners/measure/dbtest"
	"dbbench/runners/measure/provider"
	"dbbench/runners/results"
)

// A run of two servers measures every database variant on each, side by side, each
// against its own embedded server: MariaDB's keys as they always were, MySQL's with
// db=mysql, a db comparison for each pair, the layer without database once, and
// MySQL's re-prepare of PDO's integer parameter counted in its general log and
// explained, not flagged.
func TestTwoServersSideBySide(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run skipped in -short mode")
	}
	root, binDir, m, p := smokeSetup(t)
	var log strings.Builder
	res, err := Run(context.Background(), Options{
		Selection: Selection{Root: root, BinDir: binDir, Matrix: m, Preset: p, Variants: regexp.MustCompile(`^lang=go/server=nethttp/layer=hello/|^lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/|^lang=php/server=fpm/layer=raw/stmt=prepare/conn=persistent/`), DB: provider.Options{Rows: 2000, MySQLDir: filepath.Join(root, "bin", "mysql"), PerfSchema: true}, DBs: []string{"mariadb", "mysql"}},
		Output:    Output{Out: t.TempDir(), Log: &log},
		Shape:     Shape{KeepAlive: true, Seed: 7},
		Checks:    Checks{Profile: ProfileOff},
	})
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, v := range res.Variants {
		keys = append(keys, v.Key)
		if !v.Valid {
			t.Errorf("%s invalid: %s", v.Key, v.InvalidReason)
		}
		if v.Roundtrips != nil && !v.Roundtrips.Match {
			t.Errorf("%s round trips differ from the matrix: %s", v.Key, v.Roundtrips.Mismatch)
		}
	}
	want := []string{
		"lang=go/server=nethttp/layer=hello/stmt=none/conn=none/pool=8",
		"lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=8",
		"lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=8/db=mysql",
		"lang=php/server=fpm/layer=raw/stmt=prepare/conn=persistent/pool=4",
		"lang=php/server=fpm/layer=raw/stmt=prepare/conn=persistent/pool=4/db=mysql",
	}
	if strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Fatalf("variants\n%s\nwant\n%s", strings.Join(keys, "\n"), strings.Join(want, "\n"))
	}
	pdo, onMySQL := res.Variants[3].Roundtrips, res.Variants[4].Roundtrips
	if pdo.Log["Prepare"] != 1 || onMySQL.Log["Prepare"] != 2 || onMySQL.Wire["Prepare"] != 1 || onMySQL.LogOnly["Prepare"] != 1 || len(onMySQL.Why) == 0 {
		t.Errorf("PDO prepare: MariaDB's log Prepare %.2f, MySQL's log %.2f wire %.2f log-only %v (%q); want 1, 2, 1, 1 with its cause",
			pdo.Log["Prepare"], onMySQL.Log["Prepare"], onMySQL.Wire["Prepare"], onMySQL.LogOnly, onMySQL.Why)
	}
	// performance_schema counts what the client sent, once on both servers: the re-prepare
	// is the server's own, which it counts in Com_stmt_reprepare.
	for _, rt := range []*results.Roundtrips{pdo, onMySQL} {
		if rt.PerfSchema["Prepare"] != 1 || rt.PerfSchema["Execute"] != 1 || rt.RowsExamined != 1 || rt.ServerTime <= 0 {
			t.Errorf("PDO prepare: performance_schema %v, %.2f rows examined, %v s (%s); want Prepare 1, Execute 1, 1 row", rt.PerfSchema, rt.RowsExamined, rt.ServerTime, rt.PerfSchemaOff)
		}
	}
	if pdo.Status["Com_stmt_reprepare"] != 0 || onMySQL.Status["Com_stmt_reprepare"] != 1 {
		t.Errorf("Com_stmt_reprepare per request: MariaDB %.2f, MySQL %.2f; want 0 and 1", pdo.Status["Com_stmt_reprepare"], onMySQL.Status["Com_stmt_reprepare"])
	}
	// What a new connection costs was measured on each server, on each of its paths.
	for server, n := range map[string]int{"mariadb": 2, "mysql": 4} {
		if got := len(res.Connections[server]); got != n {
			t.Errorf("%s: %d connection paths measured, want %d (plain and TLS)", server, got, n)
		}
	}
	if !strings.Contains(log.String(), "PDO::PARAM_INT") {
		t.Errorf("the run did not say why MySQL's log counts a second Prepare")
	}
	if db, my := res.Environment["database"], res.Environment["database-mysql"]; !strings.Contains(db, "MariaDB") || !strings.Contains(my, provider.MySQLVersion) {
		t.Errorf("environment database %q, database-mysql %q; want MariaDB and MySQL %s", db, my, provider.MySQLVersion)
	}
	var dbPairs []string
	for _, pair := range questions.Pairs(res, nil) {
		if pair.Question == questions.DB {
			dbPairs = append(dbPairs, pair.Other.Key+" against "+pair.Base.Key)
		}
		if pair.Question != questions.DB && pair.Other.Database != pair.Base.Database {
			t.Errorf("%s pairs two servers: %s against %s", pair.Question, pair.Other.Key, pair.Base.Key)
		}
	}
	if len(dbPairs) != 2 {
		t.Errorf("db comparisons %q, want each database variant on MySQL against itself on MariaDB", dbPairs)
	}
	dbtest.AssertNoChildren(t)
}
