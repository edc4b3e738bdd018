// Package builder is the builder layer: squirrel builds the SELECT on every request,
// the way application code writes it, and runs it through database/sql.
package builder

import (
	"context"
	"database/sql"
	"errors"

	sq "github.com/Masterminds/squirrel"

	"dbbench/go/server"
)

// Stmts are the statement modes the layer offers: all of them.
var Stmts = server.AllStmts

// Finder reads users with a squirrel SelectBuilder.
type Finder struct {
	runner sq.BaseRunner
}

// New returns a Finder on db. prepared runs the queries through squirrel's StmtCache,
// which keeps one *sql.Stmt per distinct SQL text (prepared on first use).
func New(_ context.Context, db *sql.DB, prepared bool) (*Finder, error) {
	if prepared {
		return &Finder{runner: sq.NewStmtCache(db)}, nil
	}
	return &Finder{runner: db}, nil
}

// Find implements server.Finder. The builder renders
// "SELECT id, name FROM users WHERE id = ?" with id as the argument, never in the text.
func (f *Finder) Find(ctx context.Context, id uint32) (server.User, error) {
	var u server.User
	err := sq.Select("id", "name").
		From("users").
		Where(sq.Eq{"id": id}).
		RunWith(f.runner).
		QueryRowContext(ctx).
		Scan(&u.ID, &u.Name)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return server.User{}, server.ErrNotFound
		}
		return server.User{}, err
	}
	return u, nil
}
