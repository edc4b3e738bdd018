package server

import (
	"context"
	"database/sql"
)

// Statement modes a layer may offer (the stmt key of a variant name):
// Prepare, server-side prepare per query; Prepared, prepared once per connection and
// reused; Interpolate, client-side interpolation into one text query.
const (
	Prepare     = "prepare"
	Prepared    = "prepared"
	Interpolate = "interpolate"
)

// AllStmts is for layers that offer every statement mode.
var AllStmts = []string{Prepare, Prepared, Interpolate}

// Layer is one data-access layer as gotarget serves it: how to open it on the pool and
// the statement modes it offers. Every layer offers both connection modes: the pool
// decides those, not the layer.
type Layer struct {
	// Open builds the layer's Store on db; prepared is stmt=prepared.
	Open  func(ctx context.Context, db *sql.DB, prepared bool) (Store, error)
	Stmts []string
	// Postgres says the layer reads PostgreSQL (through pgx unless Driver says), not MySQL.
	Postgres bool
	// Driver names the layer's database/sql driver where its protocol has two: "pq"
	// (lib/pq) on PostgreSQL; "" the protocol's first (go-sql-driver/mysql, pgx).
	Driver string
}

// Open adapts a layer package's New, which returns its own Store type.
func Open[S Store](newStore func(context.Context, *sql.DB, bool) (S, error)) func(context.Context, *sql.DB, bool) (Store, error) {
	return func(ctx context.Context, db *sql.DB, prepared bool) (Store, error) {
		return newStore(ctx, db, prepared)
	}
}
