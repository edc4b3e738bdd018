// Package pgx is the raw layer on PostgreSQL: database/sql with pgx v5's stdlib driver,
// nothing between the handler and the driver, every op the SQL a person writes by
// hand. Its statement modes are pgx's own execution modes (server.PgxModes): gotarget
// sets the connection's default_query_exec_mode, as a user sets it in the URL, and the
// layer's code is the same in every mode. Layer pq serves this code under lib/pq
// (layers.go).
package pgx

import (
	"context"
	"database/sql"
	"errors"

	"dbbench/go/server"
)

// The statements, one per step of an op, as raw.go's are on MySQL.
const (
	// Query is get's one statement.
	Query = "SELECT id, name FROM users WHERE id = $1"
	// ListQuery is list's: keyset pagination on the primary key.
	ListQuery = "SELECT id, name FROM users WHERE id > $1 ORDER BY id LIMIT $2"
	// InsertQuery is insert's; PostgreSQL returns the new id with the row (no
	// LastInsertId).
	InsertQuery = "INSERT INTO users (name) VALUES ($1) RETURNING id"
	// LockQuery is update's locking read: the row stays locked until the commit.
	LockQuery = "SELECT visits FROM users WHERE id = $1 FOR UPDATE"
	// UpdateQuery is update's write of the incremented value.
	UpdateQuery = "UPDATE users SET visits = $1 WHERE id = $2"
)

// Store runs each statement with database/sql; get's through one of its texts.
type Store struct {
	db   *sql.DB
	gets []string // get's statement texts (server.StatementTexts)
}

// New returns a Store on db; o.Prepared is never set, since no pgx (or lib/pq) mode is
// stmt=prepared.
func New(_ context.Context, db *sql.DB, o server.LayerOptions) (*Store, error) {
	return &Store{db: db, gets: server.StatementTexts(Query, o.Texts)}, nil
}

// Find implements server.Finder.
func (s *Store) Find(ctx context.Context, id uint32) (server.User, error) {
	var u server.User
	if err := s.db.QueryRowContext(ctx, server.TextOf(id, s.gets), id).Scan(&u.ID, &u.Name); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return server.User{}, server.ErrNotFound
		}
		return server.User{}, err
	}
	return u, nil
}

// List implements server.Store.
//
// raw.go's List scans the rows with this loop on purpose: every layer is
// self-contained (layers.go).
func (s *Store) List(ctx context.Context, after uint32, limit int) ([]server.User, error) {
	rows, err := s.db.QueryContext(ctx, ListQuery, after, limit)
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
	if err := s.db.QueryRowContext(ctx, InsertQuery, name).Scan(&id); err != nil {
		return server.User{}, err
	}
	return server.User{ID: id, Name: name}, nil
}

// Visit implements server.Store: BEGIN, SELECT … FOR UPDATE, UPDATE, COMMIT.
func (s *Store) Visit(ctx context.Context, id uint32) (server.Visits, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return server.Visits{}, err
	}
	defer tx.Rollback() // a no-op after Commit; ROLLBACK after a miss or a failure
	var visits uint32
	if err := tx.QueryRowContext(ctx, LockQuery, id).Scan(&visits); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return server.Visits{}, server.ErrNotFound
		}
		return server.Visits{}, err
	}
	visits++
	if _, err := tx.ExecContext(ctx, UpdateQuery, visits, id); err != nil {
		return server.Visits{}, err
	}
	if err := tx.Commit(); err != nil {
		return server.Visits{}, err
	}
	return server.Visits{ID: id, Visits: visits}, nil
}
