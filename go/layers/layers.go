// Package layers is gotarget's list of data-access layers. Adding a layer is a package
// under go/layers/ and one line in All; runners/matrix.yaml then names it, and a test
// (runners/measure/target) fails until both agree.
//
// Each layer package is its library's idiomatic code, written as that library's users
// write it, and deliberately self-contained, like TechEmpower's per-framework folders:
// no helper is shared between layers, so that what a profile or a round-trip count
// shows is the library's own, and a layer reads whole on one page. Where two layers
// look alike (the scan loop, the copy into server.User, LastInsertId), a comment says
// which file each mirrors.
package layers

import (
	"slices"

	"dbbench/go/layers/builder"
	"dbbench/go/layers/bun"
	"dbbench/go/layers/ent"
	"dbbench/go/layers/gorm"
	"dbbench/go/layers/orm"
	"dbbench/go/layers/pgx"
	"dbbench/go/layers/pgxnative"
	"dbbench/go/layers/raw"
	"dbbench/go/layers/sqlx"
	"dbbench/go/server"
)

// Both protocols, by the modes each offers there.
func both(mysql, postgres []string) map[string][]string {
	return map[string][]string{server.MySQL: mysql, server.Postgres: postgres}
}

// All maps the --layer name to its layer, one line per layer. A layer that reads both
// protocols reads PostgreSQL through pgx's database/sql driver, whose execution modes
// are its statement modes there (server.PgxModes).
var All = map[string]server.Layer{
	"raw":     {Open: server.Open(raw.New), Stmts: both(raw.Stmts, nil), Texts: true, Fetches: raw.Fetches},
	"builder": {Open: server.Open(builder.New), Stmts: both(builder.Stmts, server.PgxModes), Fetches: builder.Fetches},
	"orm":     {Open: server.Open(orm.New), Stmts: both(orm.Stmts, nil), Fetches: orm.Fetches},
	"gorm":    {Open: server.Open(gorm.New), Stmts: both(gorm.Stmts, server.PgxModes), Texts: true, Fetches: gorm.Fetches},
	"sqlx":    {Open: server.Open(sqlx.New), Stmts: both(sqlx.Stmts, server.PgxModes), Fetches: sqlx.Fetches},
	"bun":     {Open: server.Open(bun.New), Stmts: both(bun.Stmts, bun.PostgresStmts), Fetches: bun.Fetches},
	"ent":     {Open: server.Open(ent.New), Stmts: both(ent.Stmts, server.PgxModes), Fetches: ent.Fetches},
	"pgx":     {Open: server.Open(pgx.New), Stmts: both(nil, server.PgxModes), Texts: true, Fetches: pgx.Fetches},
	// layers/pgx's code under lib/pq: the same SQL by hand, the other driver Go's
	// PostgreSQL users run. Its stmt values are lib/pq's two ways of sending a query
	// with arguments: an unnamed statement prepared (Parse, Describe, Sync) and then
	// executed (Bind, Execute, Sync), its default; binary_parameters=yes, the five
	// messages at once (gotarget sets it in the URL).
	"pq": {Open: server.Open(pgx.New), Stmts: both(nil, []string{"prepare", "binary_parameters"}), Driver: "pq", Texts: true, Fetches: pgx.Fetches},
	// layers/pgx's SQL on pgx's own pool, without database/sql.
	"pgxpool": {OpenPgx: server.OpenPgx(pgxnative.New), Stmts: both(nil, server.PgxModes), Driver: server.PgxPool, Fetches: pgxnative.Fetches},
}

// Hello is the layer without a database: the server answers GET /hello only.
const Hello = "hello"

// Catalog is what gotarget's flags are checked against: every layer with the statement
// modes it offers on either protocol, and Hello with none (gotarget checks the mode
// against the DSN's protocol once it reads the file).
func Catalog() map[string][]string {
	c := map[string][]string{Hello: nil}
	for name, l := range All {
		for _, stmt := range append(slices.Clone(l.Stmts[server.MySQL]), l.Stmts[server.Postgres]...) {
			if !slices.Contains(c[name], stmt) {
				c[name] = append(c[name], stmt)
			}
		}
	}
	return c
}

// WithTexts are the layers that read get through a statement working set
// (server.Layer.Texts), sorted.
func WithTexts() []string {
	var out []string
	for name, l := range All {
		if l.Texts {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
