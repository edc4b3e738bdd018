// Package layers is gotarget's list of data-access layers. Adding a layer is a package
// under go/layers/ and one line in All; runners/matrix.yaml then names it, and a test
// (runners/target) fails until both agree.
//
// Each layer package is its library's idiomatic code, written as that library's users
// write it, and deliberately self-contained, like TechEmpower's per-framework folders:
// no helper is shared between layers, so that what a profile or a round-trip count
// shows is the library's own, and a layer reads whole on one page. Where two layers
// look alike (the scan loop, the copy into server.User, LastInsertId), a comment says
// which file each mirrors.
package layers

import (
	"dbbench/go/layers/builder"
	"dbbench/go/layers/bun"
	"dbbench/go/layers/ent"
	"dbbench/go/layers/gorm"
	"dbbench/go/layers/orm"
	"dbbench/go/layers/pgx"
	"dbbench/go/layers/raw"
	"dbbench/go/layers/sqlx"
	"dbbench/go/server"
)

// All maps the --layer name to its layer, one line per layer.
var All = map[string]server.Layer{
	"raw":     {Open: server.Open(raw.New), Stmts: raw.Stmts},
	"builder": {Open: server.Open(builder.New), Stmts: builder.Stmts},
	"orm":     {Open: server.Open(orm.New), Stmts: orm.Stmts},
	"gorm":    {Open: server.Open(gorm.New), Stmts: gorm.Stmts},
	"sqlx":    {Open: server.Open(sqlx.New), Stmts: sqlx.Stmts},
	"bun":     {Open: server.Open(bun.New), Stmts: bun.Stmts},
	"ent":     {Open: server.Open(ent.New), Stmts: ent.Stmts},
	"pgx":     {Open: server.Open(pgx.New), Stmts: pgx.Stmts, Postgres: true},
	// layers/pgx's code under lib/pq: the same SQL by hand, the other driver Go's
	// PostgreSQL users run. Its stmt values are lib/pq's two ways of sending a query
	// with arguments: an unnamed statement prepared (Parse, Describe, Sync) and then
	// executed (Bind, Execute, Sync), its default; binary_parameters=yes, the five
	// messages at once (gotarget sets it in the URL).
	"pq": {Open: server.Open(pgx.New), Stmts: []string{"prepare", "binary_parameters"}, Postgres: true, Driver: "pq"},
}

// Hello is the layer without a database: the server answers GET /hello only.
const Hello = "hello"

// Catalog is what gotarget's flags are checked against: every layer with the statement
// modes it offers, and Hello with none.
func Catalog() map[string][]string {
	c := map[string][]string{Hello: nil}
	for name, l := range All {
		c[name] = l.Stmts
	}
	return c
}
