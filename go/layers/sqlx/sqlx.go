// Package sqlx is the sqlx layer: jmoiron/sqlx v1.4.0 on the shared pool, the SQL
// written by hand and the row scanned into a struct by its db tags.
//
// Kind: raw. The statement is the same hand-written text the raw layer sends, passed
// through unchanged (sqlx rebinds placeholders only when asked, and "?" is MySQL's
// already); sqlx neither builds SQL nor knows the table, it only maps result columns to
// struct fields by reflection. What this layer adds to raw is therefore that mapping,
// and nothing on the wire: it is raw plus struct scanning, not a builder or an ORM.
//
// Per request: one GetContext, which is database/sql's QueryRowContext and a scan into
// the struct. Statement modes: all three, exactly as the raw layer, because sqlx hands
// the query and its argument to database/sql untouched: prepare (interpolateParams=false:
// the driver prepares, executes and closes), interpolate (interpolateParams=true: one
// text query) and prepared (one *sqlx.Stmt from PreparexContext, a *sql.Stmt underneath,
// prepared again once on each connection the pool opens).
package sqlx

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	jsqlx "github.com/jmoiron/sqlx"

	"dbbench/go/server"
)

// Query is the one statement every request sends, the raw layer's text.
const Query = "SELECT id, name FROM users WHERE id = ?"

// Stmts are the statement modes the layer offers: all of them.
var Stmts = server.AllStmts

// user is the row as sqlx maps it: columns to fields by their db tag.
type user struct {
	ID   uint32 `db:"id"`
	Name string `db:"name"`
}

// Finder reads users with GetContext, on the pool or on one prepared statement.
type Finder struct {
	db   *jsqlx.DB
	stmt *jsqlx.Stmt // nil unless prepared
}

// New wraps db in an *sqlx.DB (which sends nothing) and, when prepared, prepares Query
// once now.
func New(ctx context.Context, db *sql.DB, prepared bool) (*Finder, error) {
	f := &Finder{db: jsqlx.NewDb(db, "mysql")}
	if prepared {
		stmt, err := f.db.PreparexContext(ctx, Query)
		if err != nil {
			return nil, fmt.Errorf("sqlx: prepare %q: %w", Query, err)
		}
		f.stmt = stmt
	}
	return f, nil
}

// Find implements server.Finder. GetContext returns sql.ErrNoRows for a missing row.
func (f *Finder) Find(ctx context.Context, id uint32) (server.User, error) {
	var u user
	var err error
	if f.stmt != nil {
		err = f.stmt.GetContext(ctx, &u, id)
	} else {
		err = f.db.GetContext(ctx, &u, Query, id)
	}
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return server.User{}, server.ErrNotFound
		}
		return server.User{}, err
	}
	return server.User{ID: u.ID, Name: u.Name}, nil
}
