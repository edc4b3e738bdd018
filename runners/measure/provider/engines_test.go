package provider

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dbbench/fixtures"
)

// mysqlDir is where make deps unpacks MySQL 8.0 (runners/install-deps.sh).
func mysqlDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "bin", "mysql"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// The second embedded server is a real MySQL 8.0: as shipped (caching_sha2_password,
// performance_schema on), private (loopback, its own directory, a generated password)
// and gone after Close like MariaDB.
func TestEmbeddedMySQLIsMySQL8AsShippedAndCleansUp(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now()
	db, err := Start(ctx, Options{Server: "mysql", MySQLDir: mysqlDir(t), Rows: 1000, MaxConnections: 200, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("mysql start + load + verify: %v", time.Since(t0))
	pid, dir := db.PID, db.Dir
	defer func() {
		db.Close()
		assertGone(t, pid, dir)
	}()
	if db.Server != "mysql" || db.Daemon != "mysqld" || !strings.HasPrefix(db.Version, MySQLVersion) {
		t.Fatalf("server %q, daemon %q, version %q; want mysql, mysqld, %s", db.Server, db.Daemon, db.Version, MySQLVersion)
	}
	if !strings.HasPrefix(filepath.Base(dir), "dbbench-mysql-") {
		t.Errorf("private directory %s does not carry the mysql prefix", dir)
	}
	pool, err := db.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for q, want := range map[string]string{
		"SELECT @@bind_address":       "127.0.0.1",
		"SELECT @@performance_schema": "1",
		"SELECT @@max_connections":    "200",
		"SELECT @@log_bin":            "0",
		"SELECT plugin FROM mysql.user WHERE user = 'dbbench' LIMIT 1": "caching_sha2_password",
	} {
		var got string
		if err := pool.QueryRow(q).Scan(&got); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", q, got, err, want)
		}
	}
	if err := fixtures.Verify(ctx, pool, 1000); err != nil {
		t.Errorf("fixtures on MySQL: %v", err)
	}
}

// Without the unpacked server the error names what is missing and how to get it, and
// is ErrNotInstalled (the command's usage status).
func TestNoMySQLSaysMakeDeps(t *testing.T) {
	_, err := Start(context.Background(), Options{Server: "mysql", MySQLDir: t.TempDir(), Rows: 10, Log: testLog{t}})
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "no MySQL "+MySQLVersion) || !strings.Contains(err.Error(), "make deps") {
		t.Fatalf("Start without MySQL = %v, want ErrNotInstalled naming make deps", err)
	}
	if _, err := Start(context.Background(), Options{Server: "oracle", Rows: 10, Log: testLog{t}}); err == nil || !strings.Contains(err.Error(), `unknown database server "oracle" (want one of mariadb, mysql, postgres, pgbouncer, pgbouncer-118, pgbouncer-off)`) {
		t.Fatalf("an unknown server: %v", err)
	}
}

// A PgBouncer version that is not built here, or max_prepared_statements asked of 1.18,
// which has none, is refused before anything starts, naming what there is.
func TestPgBouncerSettingsAreChecked(t *testing.T) {
	ten := 10
	for _, c := range []struct {
		s    PgBouncerSettings
		want string
	}{
		{PgBouncerSettings{Version: "1.21"}, `version "1.21": want 1.18 or 1.24`},
		{PgBouncerSettings{Version: "1.18", MaxPreparedStatements: &ten}, "max_prepared_statements needs PgBouncer 1.21 or later"},
	} {
		if _, err := c.s.binary(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", c.s, err, c.want)
		}
	}
	if s := (PgBouncerSettings{}); cmp.Or(s.Version, DefaultPgBouncer) != "1.24" {
		t.Errorf("the default PgBouncer is %s, want 1.24, what teams run today", DefaultPgBouncer)
	}
}
