// Package dbtest gives integration tests a real embedded MariaDB (or MySQL 8.0) with
// the fixtures loaded, stopped again when the test ends.
package dbtest

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"dbbench/runners/measure/procstat"
	"dbbench/runners/measure/provider"
)

// StartMySQL brings up the embedded MySQL 8.0 that make deps unpacks into bin/mysql,
// with rows users, as Start does MariaDB.
func StartMySQL(t testing.TB, rows int) *DB {
	t.Helper()
	return start(t, provider.Options{Server: "mysql", MySQLDir: mysqlDir(t), Rows: rows, MaxConnections: 1000, Log: logWriter{t}})
}

// mysqlDir is the repository's bin/mysql, found from the test's directory upwards.
func mysqlDir(t testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "runners", "matrix.yaml")); err == nil {
			return filepath.Join(dir, "bin", "mysql")
		}
	}
	t.Fatal("dbtest: no repository above the test's directory")
	return ""
}

// Start brings up an embedded MariaDB with rows users (performance_schema on, every
// instrument off). Its DSN is written to a 0600 file
// in the test's temp dir; DSNFile returns that path.
func Start(t testing.TB, rows int) *DB {
	t.Helper()
	// PerfSchema: the round-trip count's fourth count, which tests check, needs it.
	return start(t, provider.Options{Rows: rows, MaxConnections: 1000, PerfSchema: true, Log: logWriter{t}})
}

func start(t testing.TB, o provider.Options) *DB {
	t.Helper()
	db, err := provider.Start(context.Background(), o)
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("dbtest: stop embedded %s: %v", db.Daemon, err)
		}
	})
	dsnFile := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(dsnFile, []byte(db.DSN()+"\n"), 0o600); err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	return &DB{DB: db, DSNFile: dsnFile, Config: ConfigOf(t, db)}
}

// ConfigOf is the go-sql-driver config of a MySQL-protocol server's DSN, password
// included, for a test that takes its address, user and password apart.
func ConfigOf(t testing.TB, db *provider.DB) *mysql.Config {
	t.Helper()
	cfg, err := mysql.ParseDSN(db.DSN())
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	return cfg
}

// AssertNoChildren fails the test if a process started by it (a database, a target,
// nginx or php-fpm) is still alive 5 s after the point of the call.
func AssertNoChildren(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		kids, err := procstat.Descendants(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if len(kids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var names []string
			for _, pid := range kids {
				b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
				names = append(names, strconv.Itoa(pid)+" "+strings.ReplaceAll(string(b), "\x00", " "))
			}
			t.Fatalf("processes left behind: %v", names)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// RootSQL runs stmts as the server's root user, through its socket with the mariadb
// client (root logs in by unix_socket, which the Go driver does not speak): for set-ups
// that need more than the benchmark user may do, such as GRANT.
func (db *DB) RootSQL(t testing.TB, stmts string) {
	t.Helper()
	cmd := exec.Command("mariadb", "--no-defaults", "-uroot", "-S", filepath.Join(db.Dir, db.Daemon+".sock"), "-e", stmts)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dbtest: mariadb: %v: %s", err, out)
	}
}

// Query returns column col of the first row of q, as text ("NULL" for a null), as the
// benchmark user (who may read every database).
func (db *DB) Query(t testing.TB, q string, col int) string {
	t.Helper()
	pool, err := db.Open()
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	defer pool.Close()
	rows, err := pool.Query(q)
	if err != nil {
		t.Fatalf("dbtest: %s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil || !rows.Next() || col >= len(cols) {
		t.Fatalf("dbtest: %s: no row, or no column %d (%v)", q, col, err)
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatalf("dbtest: %s: %v", q, err)
	}
	if !vals[col].Valid {
		return "NULL"
	}
	return vals[col].String
}

// DB is a running embedded server for a test.
type DB struct {
	*provider.DB
	DSNFile string
	// Config is the server's go-sql-driver config, password included: tests take its
	// address, user and password apart.
	Config *mysql.Config
}

type logWriter struct{ t testing.TB }

func (l logWriter) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
