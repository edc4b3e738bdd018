package main

import (
	"io"
	"strings"
	"testing"

	"dbbench/runners/measure/provider"
)

// --app-host refuses a database on this host's loopback, named by a MySQL DSN or a
// PostgreSQL URL alike, unless --rtt's proxy stands between; an address the app host
// reaches passes.
func TestAppHostRefusesALoopbackDatabaseOfEitherProtocol(t *testing.T) {
	for _, c := range []struct {
		line   string
		refuse bool
	}{
		{"u:p@tcp(127.0.0.1:3306)/dbbench", true},
		{"postgres://u:p@127.0.0.1:5432/dbbench?sslmode=disable", true},
		{"postgresql://u:p@localhost/dbbench?sslmode=disable", true},
		{"u:p@tcp(10.0.0.5:3306)/dbbench", false},
		{"postgres://u:p@10.0.0.5:5432/dbbench?sslmode=disable", false},
	} {
		err := checkAppHostDB(newFlagSet("run", io.Discard), provider.Options{Kind: "dsn", DSN: c.line}, 0)
		if c.refuse != (err != nil) || err != nil && !strings.Contains(err.Error(), "loopback") {
			t.Errorf("%s: %v; want refused: %v", c.line, err, c.refuse)
		}
		if err := checkAppHostDB(newFlagSet("run", io.Discard), provider.Options{Kind: "dsn", DSN: c.line}, 1e6); err != nil {
			t.Errorf("%s with --rtt: %v; want it passed (the proxy stands between)", c.line, err)
		}
	}
}
