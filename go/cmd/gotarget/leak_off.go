//go:build !leak

package main

import (
	"database/sql"
	"log"

	"dbbench/go/server"
)

// plantLeak is the release build's: no leak can be planted, and nothing here reads the
// environment. (leak_on.go, built only with -tags leak, is the soak's and compare's test knob.)
func plantLeak(f server.Finder, _ *sql.DB, _ string, _ *log.Logger) (server.Finder, error) {
	return f, nil
}
