// Package raw is the raw layer: database/sql and go-sql-driver/mysql, nothing between
// the handler and the driver. Every op is the SQL a person writes by hand.
package raw

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"dbbench/go/server"
)

// The statements, one per step of an op.
const (
	// Query is get's one statement.
	Query = "SELECT id, name FROM users WHERE id = ?"
	// ListQuery is list's: keyset pagination on the primary key.
	ListQuery = "SELECT id, name FROM users WHERE id > ? ORDER BY id LIMIT ?"
	// InsertQuery is insert's; the new id comes back in the OK packet (LastInsertId).
	InsertQuery = "INSERT INTO users (name) VALUES (?)"
	// LockQuery is update's locking read: the row stays locked until the commit, so
	// concurrent visits of one user queue here instead of losing each other's increment.
	LockQuery = "SELECT visits FROM users WHERE id = ? FOR UPDATE"
	// UpdateQuery is update's write of the incremented value.
	UpdateQuery = "UPDATE users SET visits = ? WHERE id = ?"
)

// Stmts are the statement modes the layer offers: all of them.
var Stmts = server.AllStmts

// Store runs each statement with database/sql, or on its *sql.Stmt when prepared.
type Store struct {
	db                            *sql.DB
	list, insert, lock, increment *sql.Stmt // nil unless prepared
	// gets are get's statement texts (server.StatementTexts), getStmts each prepared
	// (nil unless prepared).
	gets     []string
	getStmts map[string]*sql.Stmt
	orders   ordersStmts // the orders ops' statements, prepared once (orders.go)
}

// New returns a Store on db. prepared prepares every statement once now; database/sql
// then prepares each again on each further connection the pool opens, once per
// connection (in a transaction through tx.StmtContext, which reuses the connection's).
func New(ctx context.Context, db *sql.DB, o server.LayerOptions) (*Store, error) {
	s := &Store{db: db, gets: server.StatementTexts(Query, o.Texts)}
	if !o.Prepared {
		return s, nil
	}
	s.getStmts = map[string]*sql.Stmt{}
	for _, q := range s.gets {
		stmt, err := db.PrepareContext(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("raw: prepare %q: %w", q, err)
		}
		s.getStmts[q] = stmt
	}
	for _, p := range []struct {
		stmt  **sql.Stmt
		query string
	}{{&s.list, ListQuery}, {&s.insert, InsertQuery}, {&s.lock, LockQuery}, {&s.increment, UpdateQuery}} {
		stmt, err := db.PrepareContext(ctx, p.query)
		if err != nil {
			return nil, fmt.Errorf("raw: prepare %q: %w", p.query, err)
		}
		*p.stmt = stmt
	}
	return s, nil
}

// Find implements server.Finder.
func (s *Store) Find(ctx context.Context, id uint32) (server.User, error) {
	var row *sql.Row
	q := server.TextOf(id, s.gets)
	if s.getStmts != nil {
		row = s.getStmts[q].QueryRowContext(ctx, id)
	} else {
		row = s.db.QueryRowContext(ctx, q, id)
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

// List implements server.Store.
//
// builder.go's List scans the rows with this loop on purpose: every layer is
// self-contained (layers.go).
func (s *Store) List(ctx context.Context, after uint32, limit int) ([]server.User, error) {
	var rows *sql.Rows
	var err error
	if s.list != nil {
		rows, err = s.list.QueryContext(ctx, after, limit)
	} else {
		rows, err = s.db.QueryContext(ctx, ListQuery, after, limit)
	}
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

// Insert implements server.Store: one INSERT in autocommit, the id from LastInsertId.
//
// builder.go and sqlx.go end their Insert with this LastInsertId tail on purpose: every
// layer is self-contained (layers.go).
func (s *Store) Insert(ctx context.Context, name string) (server.User, error) {
	var res sql.Result
	var err error
	if s.insert != nil {
		res, err = s.insert.ExecContext(ctx, name)
	} else {
		res, err = s.db.ExecContext(ctx, InsertQuery, name)
	}
	if err != nil {
		return server.User{}, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return server.User{}, err
	}
	return server.User{ID: uint32(id), Name: name}, nil
}

// Visit implements server.Store: BEGIN, SELECT … FOR UPDATE, UPDATE, COMMIT. When
// prepared, the statements are bound to the transaction with tx.StmtContext, which
// reuses the statement already prepared on the transaction's connection.
func (s *Store) Visit(ctx context.Context, id uint32) (server.Visits, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return server.Visits{}, err
	}
	defer tx.Rollback() // a no-op after Commit; ROLLBACK after a miss or a failure
	var row *sql.Row
	if s.lock != nil {
		row = tx.StmtContext(ctx, s.lock).QueryRowContext(ctx, id)
	} else {
		row = tx.QueryRowContext(ctx, LockQuery, id)
	}
	var visits uint32
	if err := row.Scan(&visits); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return server.Visits{}, server.ErrNotFound
		}
		return server.Visits{}, err
	}
	visits++
	if s.increment != nil {
		_, err = tx.StmtContext(ctx, s.increment).ExecContext(ctx, visits, id)
	} else {
		_, err = tx.ExecContext(ctx, UpdateQuery, visits, id)
	}
	if err != nil {
		return server.Visits{}, err
	}
	if err := tx.Commit(); err != nil {
		return server.Visits{}, err
	}
	return server.Visits{ID: id, Visits: visits}, nil
}
