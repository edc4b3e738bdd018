//go:build !leak

package main

import (
	"database/sql"
	"log"

	"dbbench/go/server"
)

// plantLeak is the release build's: no leak can be planted, and nothing here reads the
// environment. (leak_on.go, built only with -tags leak, is the test knob of the soak,
// of compare and of the update op's lost-update check.)
func plantLeak(s server.Store, _ *sql.DB, _ string, _ *log.Logger) (server.Store, error) {
	return s, nil
}
