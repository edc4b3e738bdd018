// Package builder is the builder layer: squirrel builds every statement on every
// request, the way application code writes it, and runs it through database/sql. On
// PostgreSQL it builds with $1 placeholders (squirrel's Dollar format, the statement
// builder its README shows for PostgreSQL) and inserts with RETURNING id.
package builder

import (
	"context"
	"database/sql"
	"errors"

	sq "github.com/Masterminds/squirrel"

	"dbbench/go/server"
)

// Stmts are the statement modes the layer offers on MySQL: all of them.
var Stmts = server.AllStmts

// Store builds its statements with squirrel.
type Store struct {
	db       *sql.DB
	cache    *sq.StmtCache // nil unless prepared
	sql      sq.StatementBuilderType
	postgres bool
}

// New returns a Store on db. o.Prepared runs the statements through squirrel's
// StmtCache, which keeps one *sql.Stmt per distinct SQL text (prepared on first use).
func New(_ context.Context, db *sql.DB, o server.LayerOptions) (*Store, error) {
	s := &Store{db: db, sql: sq.StatementBuilder, postgres: o.Postgres}
	if o.Postgres {
		s.sql = sq.StatementBuilder.PlaceholderFormat(sq.Dollar)
	}
	if o.Prepared {
		s.cache = sq.NewStmtCache(db)
	}
	return s, nil
}

// runner is what the statements outside a transaction run on: the pool, or the cache.
func (s *Store) runner() sq.BaseRunner {
	if s.cache != nil {
		return s.cache
	}
	return s.db
}

// Find implements server.Finder. The builder renders
// "SELECT id, name FROM users WHERE id = ?" with id as the argument, never in the text.
func (s *Store) Find(ctx context.Context, id uint32) (server.User, error) {
	var u server.User
	err := s.sql.Select("id", "name").
		From("users").
		Where(sq.Eq{"id": id}).
		RunWith(s.runner()).
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

// List implements server.Store: "SELECT id, name FROM users WHERE id > ? ORDER BY id
// LIMIT 100". squirrel writes the limit into the text (Limit takes a number, not an
// argument), so the statement cache holds one statement per limit.
//
// The scan loop is raw.go's on purpose: every layer is self-contained (layers.go).
func (s *Store) List(ctx context.Context, after uint32, limit int) ([]server.User, error) {
	rows, err := s.sql.Select("id", "name").
		From("users").
		Where(sq.Gt{"id": after}).
		OrderBy("id").
		Limit(uint64(limit)).
		RunWith(s.runner()).
		QueryContext(ctx)
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

// Insert implements server.Store: "INSERT INTO users (name) VALUES (?)", the id from
// LastInsertId; on PostgreSQL "… VALUES ($1) RETURNING id".
//
// The LastInsertId tail is raw.go's on purpose: every layer is self-contained (layers.go).
func (s *Store) Insert(ctx context.Context, name string) (server.User, error) {
	if s.postgres {
		var id uint32
		err := s.sql.Insert("users").
			Columns("name").
			Values(name).
			Suffix("RETURNING id").
			RunWith(s.runner()).
			QueryRowContext(ctx).
			Scan(&id)
		if err != nil {
			return server.User{}, err
		}
		return server.User{ID: id, Name: name}, nil
	}
	res, err := s.sql.Insert("users").
		Columns("name").
		Values(name).
		RunWith(s.runner()).
		ExecContext(ctx)
	if err != nil {
		return server.User{}, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return server.User{}, err
	}
	return server.User{ID: uint32(id), Name: name}, nil
}

// Visit implements server.Store: in one database/sql transaction, squirrel's
// "SELECT visits FROM users WHERE id = ? FOR UPDATE" (Suffix, squirrel's way to end a
// statement with a clause it does not model) and "UPDATE users SET visits = ? WHERE
// id = ?", then COMMIT.
func (s *Store) Visit(ctx context.Context, id uint32) (server.Visits, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return server.Visits{}, err
	}
	defer tx.Rollback() // a no-op after Commit
	var runner sq.BaseRunner = tx
	if s.cache != nil {
		runner = cachedInTx{tx: tx, cache: s.cache}
	}
	var visits uint32
	err = s.sql.Select("visits").
		From("users").
		Where(sq.Eq{"id": id}).
		Suffix("FOR UPDATE").
		RunWith(runner).
		QueryRowContext(ctx).
		Scan(&visits)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return server.Visits{}, server.ErrNotFound
		}
		return server.Visits{}, err
	}
	visits++
	_, err = s.sql.Update("users").
		Set("visits", visits).
		Where(sq.Eq{"id": id}).
		RunWith(runner).
		ExecContext(ctx)
	if err != nil {
		return server.Visits{}, err
	}
	if err := tx.Commit(); err != nil {
		return server.Visits{}, err
	}
	return server.Visits{ID: id, Visits: visits}, nil
}

// cachedInTx runs squirrel's statements in tx on the StmtCache's statements, bound to
// the transaction with tx.StmtContext (database/sql reuses the one already prepared on
// the transaction's connection). squirrel's StmtCache prepares on the pool only; a cache
// built on the transaction would prepare anew in every one, so this adapter is how
// stmt=prepared reaches a transaction: database/sql's own idiom, no cache of its own.
type cachedInTx struct {
	tx    *sql.Tx
	cache *sq.StmtCache
}

func (c cachedInTx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	st, err := c.cache.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return c.tx.StmtContext(ctx, st), nil
}

func (c cachedInTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (c cachedInTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func (c cachedInTx) QueryRowContext(ctx context.Context, query string, args ...any) sq.RowScanner {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return errRow{err}
	}
	return st.QueryRowContext(ctx, args...)
}

// Exec and Query complete squirrel's BaseRunner; the layer only calls the Context forms.
func (c cachedInTx) Exec(query string, args ...any) (sql.Result, error) {
	return c.ExecContext(context.Background(), query, args...)
}

func (c cachedInTx) Query(query string, args ...any) (*sql.Rows, error) {
	return c.QueryContext(context.Background(), query, args...)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
