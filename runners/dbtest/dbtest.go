// Package dbtest gives integration tests a real embedded MariaDB with the fixtures
// loaded, stopped again when the test ends.
package dbtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dbbench/runners/provider"
)

// Start brings up an embedded MariaDB with rows users. Its DSN is written to a 0600 file
// in the test's temp dir; DSNFile returns that path.
func Start(t testing.TB, rows int) *DB {
	t.Helper()
	db, err := provider.Start(context.Background(), provider.Options{Rows: rows, MaxConnections: 1000, Log: logWriter{t}})
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("dbtest: stop embedded MariaDB: %v", err)
		}
	})
	dsnFile := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(dsnFile, []byte(db.DSN()+"\n"), 0o600); err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	return &DB{DB: db, DSNFile: dsnFile}
}

// DB is a running embedded server for a test.
type DB struct {
	*provider.DB
	DSNFile string
}

type logWriter struct{ t testing.TB }

func (l logWriter) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
