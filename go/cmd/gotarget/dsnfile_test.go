package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --dsn-file-remove: the file is gone once read, even when the start then fails (here
// nothing listens at the DSN's address), so no copy of the password stays on the app's
// host; without it the file is the caller's and stays.
func TestDSNFileRemove(t *testing.T) {
	for _, remove := range []bool{true, false} {
		f := filepath.Join(t.TempDir(), "dsn-1")
		if err := os.WriteFile(f, []byte("u:Sesame4711@tcp(127.0.0.1:1)/dbbench\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{"--layer", "raw", "--stmt", "interpolate", "--conn", "persistent", "--pool", "1", "--dsn-file", f, "--listen", "127.0.0.1:0"}
		if remove {
			args = append(args, "--dsn-file-remove")
		}
		var stderr strings.Builder
		if code := run(args, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "cannot reach the database") {
			t.Fatalf("remove %v: exit %d: %s", remove, code, stderr.String())
		}
		if strings.Contains(stderr.String(), "Sesame4711") {
			t.Errorf("the password in the error: %s", stderr.String())
		}
		if _, err := os.Stat(f); remove != os.IsNotExist(err) {
			t.Errorf("remove %v: the DSN file after the start: %v", remove, err)
		}
	}
	var stderr strings.Builder
	if code := run([]string{"--layer", "hello", "--dsn-file-remove"}, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "no --dsn-file") {
		t.Errorf("--dsn-file-remove alone: exit %d: %s", code, stderr.String())
	}
}

// A layer's statement mode is checked against the DSN file's protocol before any
// connection: a MySQL mode on a PostgreSQL URL, or a layer that reads no PostgreSQL,
// is named and refused, and the password is never quoted.
func TestModeOfTheDSNFilesProtocol(t *testing.T) {
	f := filepath.Join(t.TempDir(), "dsn")
	if err := os.WriteFile(f, []byte("postgres://u:Sesame4711@127.0.0.1:1/dbbench?sslmode=disable\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ layer, stmt, want string }{
		{"sqlx", "prepared", "layer sqlx has no --stmt prepared on a PostgreSQL URL (want one of cache_statement, cache_describe, describe_exec, exec, simple_protocol)"},
		{"raw", "prepare", "layer raw does not read PostgreSQL (the DSN file holds a PostgreSQL URL)"},
		{"sqlx", "cache_statement", "cannot reach the database"},
	} {
		var stderr strings.Builder
		args := []string{"--layer", tc.layer, "--stmt", tc.stmt, "--conn", "persistent", "--pool", "1", "--dsn-file", f, "--listen", "127.0.0.1:0"}
		if code := run(args, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s/%s: exit %d: %s\nwant it to say %s", tc.layer, tc.stmt, code, stderr.String(), tc.want)
		}
		if strings.Contains(stderr.String(), "Sesame4711") {
			t.Errorf("the password in the error: %s", stderr.String())
		}
	}
}
