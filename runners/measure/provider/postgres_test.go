package provider

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"dbbench/fixtures"
)

// The embedded PostgreSQL: the fixtures as the MySQL servers hold them, the next
// insert above them, the server on 127.0.0.1 only, its password nowhere in what may
// be printed, and nothing left once closed.
func TestEmbeddedPostgres(t *testing.T) {
	ctx := context.Background()
	pg, err := StartPostgres(ctx, 50, 0)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			pg.Close()
		}
	}()
	db, err := pg.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	var last string
	if err := db.QueryRowContext(ctx, "SELECT count(*), (SELECT name FROM users WHERE id = 50) FROM users").Scan(&n, &last); err != nil {
		t.Fatal(err)
	}
	if n != 50 || last != fixtures.Name(50) {
		t.Errorf("users: %d rows, row 50 %q; want 50 and %q", n, last, fixtures.Name(50))
	}
	var id int
	if err := db.QueryRowContext(ctx, "INSERT INTO users (name) VALUES ('new') RETURNING id").Scan(&id); err != nil || id != 51 {
		t.Errorf("an insert got id %d (%v), want 51", id, err)
	}
	var listen, comment string
	if err := db.QueryRowContext(ctx, "SELECT current_setting('listen_addresses'), obj_description('users'::regclass)").Scan(&listen, &comment); err != nil {
		t.Fatal(err)
	}
	if listen != "127.0.0.1" || !strings.HasPrefix(comment, "dbbench fixture table") {
		t.Errorf("listen_addresses %q, table comment %q", listen, comment)
	}
	if strings.Contains(pg.Redacted(), pg.password) || !strings.Contains(pg.URL(), pg.password) || !strings.HasPrefix(pg.Version, "PostgreSQL 15") {
		t.Errorf("Redacted %s, version %q", pg.Redacted(), pg.Version)
	}
	pid, dir := pg.cmd.Process.Pid, pg.dir
	db.Close()
	closed = true
	if err := pg.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s left after Close: %v", dir, err)
	}
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("postgres pid %d alive after Close: %v", pid, err)
	}
}

// A TMPDIR the postgres user cannot enter is named, with what to do, before initdb
// fails on a file it cannot open; one it can enter passes.
func TestReachableNamesATMPDIRPostgresCannotEnter(t *testing.T) {
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	private := t.TempDir()
	if err := os.Chmod(filepath.Dir(private), 0o711); err != nil { // t.TempDir's own parent is 0700
		t.Fatal(err)
	}
	dir := filepath.Join(private, "dbbench-pg-1")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	err := reachable(dir, nobody)
	if err == nil || !strings.Contains(err.Error(), "cannot enter "+private) || !strings.Contains(err.Error(), "chmod o+x") {
		t.Errorf("a 0700 TMPDIR: %v", err)
	}
	if err := os.Chmod(private, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := reachable(dir, nobody); err != nil {
		t.Errorf("a 0711 TMPDIR: %v", err)
	}
	if err := reachable(dir, nil); err != nil {
		t.Errorf("not root (no other user): %v", err)
	}
}
