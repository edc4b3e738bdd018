// Package pgxnative is the raw layer on pgx's own interface: a *pgxpool.Pool (pgx v5),
// no database/sql between the handler and the driver, the same SQL by hand as layer
// pgx (layers/pgx), which runs it through database/sql. Its statement modes are pgx's
// execution modes (server.PgxModes), set by gotarget on the pool's connection config.
// What it measures beside layer pgx is what database/sql costs pgx's users.
package pgxnative

import (
	"context"
	"errors"

	jackc "github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"dbbench/go/layers/pgx"
	"dbbench/go/server"
)

// Store runs each statement on the pool.
type Store struct{ pool *pgxpool.Pool }

// New returns a Store on pool, which gotarget opened.
func New(_ context.Context, pool *pgxpool.Pool) (*Store, error) { return &Store{pool: pool}, nil }

// Find implements server.Finder.
func (s *Store) Find(ctx context.Context, id uint32) (server.User, error) {
	var u server.User
	if err := s.pool.QueryRow(ctx, pgx.Query, id).Scan(&u.ID, &u.Name); err != nil {
		if errors.Is(err, jackc.ErrNoRows) {
			return server.User{}, server.ErrNotFound
		}
		return server.User{}, err
	}
	return u, nil
}

// List implements server.Store.
//
// pgx.go's List scans the rows with this loop on purpose: every layer is
// self-contained (layers.go).
func (s *Store) List(ctx context.Context, after uint32, limit int) ([]server.User, error) {
	rows, err := s.pool.Query(ctx, pgx.ListQuery, after, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	users := make([]server.User, 0, limit)
	for rows.Next() {
		var u server.User
		if err := rows.Scan(&u.ID, &u.Name); err != nil {
			return nil, err
		}
		users = append(users, u)
	}
	return users, rows.Err()
}

// Insert implements server.Store: one INSERT … RETURNING id in autocommit.
func (s *Store) Insert(ctx context.Context, name string) (server.User, error) {
	var id uint32
	if err := s.pool.QueryRow(ctx, pgx.InsertQuery, name).Scan(&id); err != nil {
		return server.User{}, err
	}
	return server.User{ID: id, Name: name}, nil
}

// Visit implements server.Store: BEGIN, SELECT … FOR UPDATE, UPDATE, COMMIT.
func (s *Store) Visit(ctx context.Context, id uint32) (server.Visits, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return server.Visits{}, err
	}
	defer tx.Rollback(ctx) // a no-op after Commit; ROLLBACK after a miss or a failure
	var visits uint32
	if err := tx.QueryRow(ctx, pgx.LockQuery, id).Scan(&visits); err != nil {
		if errors.Is(err, jackc.ErrNoRows) {
			return server.Visits{}, server.ErrNotFound
		}
		return server.Visits{}, err
	}
	visits++
	if _, err := tx.Exec(ctx, pgx.UpdateQuery, visits, id); err != nil {
		return server.Visits{}, err
	}
	if err := tx.Commit(ctx); err != nil {
		return server.Visits{}, err
	}
	return server.Visits{ID: id, Visits: visits}, nil
}
