package server

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"dbbench/dsn/protocol"
)

// Statement modes a layer may offer (the stmt key of a variant name) on MySQL:
// Prepare, server-side prepare per query; Prepared, prepared once per connection and
// reused; Interpolate, client-side interpolation into one text query.
const (
	Prepare     = "prepare"
	Prepared    = "prepared"
	Interpolate = "interpolate"
)

// AllStmts is for layers that offer every statement mode on MySQL.
var AllStmts = []string{Prepare, Prepared, Interpolate}

// PgxModes are pgx v5's execution modes, by the names its default_query_exec_mode
// takes: the statement modes of every layer on PostgreSQL through pgx's database/sql
// driver, which gotarget sets as a user sets them in the URL. The statement prepared
// once per connection and cached (cache_statement, pgx's default); its description
// cached (cache_describe); described on every query, in a round trip of its own
// (describe_exec); neither, arguments as text (exec); client-side interpolation into
// one text query (simple_protocol).
var PgxModes = []string{"cache_statement", "cache_describe", "describe_exec", "exec", "simple_protocol"}

// The wire protocols a layer may read, by matrix.yaml's names: package protocol's, the
// one list the runner's matrix reads too.
const (
	MySQL    = string(protocol.MySQL)
	Postgres = string(protocol.Postgres)
)

// LayerOptions are what a layer's New is given besides the pool.
type LayerOptions struct {
	// Prepared is stmt=prepared: prepare each statement once.
	Prepared bool
	// Postgres says the pool reads PostgreSQL: the layer writes its dialect
	// (placeholders, INSERT … RETURNING).
	Postgres bool
	// Texts is get's statement working set: the layer reads the row through one of
	// this many texts of its statement (StatementTexts), chosen by the id; 0 or 1 is
	// the one text. Only a layer with Layer.Texts reads it.
	Texts int
}

// StatementTexts are n texts of query that differ only in a comment numbering them,
// so that a driver's, a pooler's or a server's statement cache holds n statements for
// the same work: the first is query itself (n below 2: it alone).
func StatementTexts(query string, n int) []string {
	out := []string{query}
	for k := 1; k < n; k++ {
		out = append(out, fmt.Sprintf("%s /* text %d */", query, k))
	}
	return out
}

// TextOf is the text an id is read through: ids drawn uniformly spread evenly.
func TextOf(id uint32, texts []string) string { return texts[int(id)%len(texts)] }

// Layer is one data-access layer as gotarget serves it: how to open it on the pool and
// the statement modes it offers on each protocol it reads. Every layer offers both
// connection modes: the pool decides those, not the layer.
type Layer struct {
	Open func(ctx context.Context, db *sql.DB, o LayerOptions) (Store, error)
	// OpenPgx, instead of Open, builds a layer on pgx's own pool (Driver "pgxpool").
	OpenPgx func(ctx context.Context, pool *pgxpool.Pool) (Store, error)
	// Stmts are the statement modes by protocol (MySQL, Postgres): the layer reads the
	// protocols it lists.
	Stmts map[string][]string
	// Driver names the layer's driver where its protocol has more than one: "pq"
	// (lib/pq) or "pgxpool" (pgx without database/sql) on PostgreSQL; "" the protocol's
	// first under database/sql (go-sql-driver/mysql, pgx).
	Driver string
	// Texts: the layer reads get through LayerOptions.Texts statement texts.
	Texts bool
	// Fetches are the forms its Store (a Related) reads users' orders in.
	Fetches Fetches
}

// PgxPool is the Driver of a layer on pgx's own pool.
const PgxPool = "pgxpool"

// Open adapts a layer package's New, which returns its own Store type.
func Open[S Store](newStore func(context.Context, *sql.DB, LayerOptions) (S, error)) func(context.Context, *sql.DB, LayerOptions) (Store, error) {
	return func(ctx context.Context, db *sql.DB, o LayerOptions) (Store, error) {
		return newStore(ctx, db, o)
	}
}

// OpenPgx adapts a layer package's New on pgx's pool.
func OpenPgx[S Store](newStore func(context.Context, *pgxpool.Pool) (S, error)) func(context.Context, *pgxpool.Pool) (Store, error) {
	return func(ctx context.Context, pool *pgxpool.Pool) (Store, error) {
		return newStore(ctx, pool)
	}
}
