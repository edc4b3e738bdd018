// Package raw is the raw layer: database/sql and go-sql-driver/mysql, nothing between
// the handler and the driver.
package raw

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"dbbench/go/server"
)

// Query is the one statement every request sends.
const Query = "SELECT id, name FROM users WHERE id = ?"

// Stmts are the statement modes the layer offers: all of them.
var Stmts = server.AllStmts

// Finder reads users with QueryRowContext, or with one *sql.Stmt when prepared.
type Finder struct {
	db   *sql.DB
	stmt *sql.Stmt // nil unless prepared
}

// New returns a Finder on db. prepared prepares Query once now; database/sql then
// prepares it again on each further connection the pool opens, once per connection.
func New(ctx context.Context, db *sql.DB, prepared bool) (*Finder, error) {
	f := &Finder{db: db}
	if prepared {
		stmt, err := db.PrepareContext(ctx, Query)
		if err != nil {
			return nil, fmt.Errorf("raw: prepare %q: %w", Query, err)
		}
		f.stmt = stmt
	}
	return f, nil
}

// Find implements server.Finder.
func (f *Finder) Find(ctx context.Context, id uint32) (server.User, error) {
	var row *sql.Row
	if f.stmt != nil {
		row = f.stmt.QueryRowContext(ctx, id)
	} else {
		row = f.db.QueryRowContext(ctx, Query, id)
	}
	var u server.User
	if err := row.Scan(&u.ID, &u.Name); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return server.User{}, server.ErrNotFound
		}
		return server.User{}, err
	}
	return u, nil
}
