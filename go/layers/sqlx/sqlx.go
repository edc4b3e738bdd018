// Package sqlx is the sqlx layer: jmoiron/sqlx v1.4.0 on the shared pool, the SQL
// written by hand and rows mapped to and from structs by their db tags.
//
// Kind: raw. The statements are the same hand-written texts the raw layer sends, passed
// through unchanged (sqlx rebinds placeholders only when asked, and "?" is MySQL's
// already; a named statement's :name becomes "?"); sqlx neither builds SQL nor knows the
// table, it only maps result columns to struct fields, and struct fields to named
// arguments, by reflection. What this layer adds to raw is therefore that mapping, and
// nothing on the wire: it is raw plus struct mapping, not a builder or an ORM.
//
// Per request: get is one GetContext (database/sql's QueryRowContext and a scan into
// the struct); list one SelectContext (rows scanned into a slice of structs); insert one
// NamedExecContext of the user struct; update a transaction (BeginTxx) with GetContext
// of "… FOR UPDATE" into a struct and NamedExecContext of the changed struct. Statement
// modes: all three, exactly as the raw layer, because sqlx hands the queries and their
// arguments to database/sql untouched: prepare (interpolateParams=false: the driver
// prepares, executes and closes), interpolate (interpolateParams=true: one text query)
// and prepared (an *sqlx.Stmt or *sqlx.NamedStmt per statement, prepared once at start,
// a *sql.Stmt underneath, prepared again once on each connection the pool opens and
// bound to a transaction with StmtxContext and NamedStmtContext). On PostgreSQL sqlx
// rebinds the same texts to $1 placeholders (Rebind, by the driver name pgx), as its
// users write portable queries, and the insert reads its id with RETURNING.
package sqlx

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	jsqlx "github.com/jmoiron/sqlx"

	"dbbench/go/server"
)

// The statements, one per step of an op: the raw layer's texts, named where a struct
// supplies the arguments.
const (
	// Query is get's statement.
	Query = "SELECT id, name FROM users WHERE id = ?"
	// ListQuery is list's.
	ListQuery = "SELECT id, name FROM users WHERE id > ? ORDER BY id LIMIT ?"
	// InsertQuery is insert's, its argument the user struct's name.
	InsertQuery = "INSERT INTO users (name) VALUES (:name)"
	// LockQuery is update's locking read, into a visit struct.
	LockQuery = "SELECT id, visits FROM users WHERE id = ? FOR UPDATE"
	// UpdateQuery is update's write, its arguments the visit struct's fields.
	UpdateQuery = "UPDATE users SET visits = :visits WHERE id = :id"
)

// InsertReturning is insert's on PostgreSQL, which has no LastInsertId.
const InsertReturning = InsertQuery + " RETURNING id"

// Stmts are the statement modes the layer offers on MySQL: all of them.
var Stmts = server.AllStmts

// user is the row as sqlx maps it: columns to fields by their db tag.
type user struct {
	ID   uint32 `db:"id"`
	Name string `db:"name"`
}

// visit is the row as update reads and writes it.
type visit struct {
	ID     uint32 `db:"id"`
	Visits uint32 `db:"visits"`
}

// Store runs the statements with sqlx, on the pool or on statements prepared once.
type Store struct {
	db                *jsqlx.DB
	get, list, lock   *jsqlx.Stmt      // nil unless prepared
	insert, increment *jsqlx.NamedStmt // nil unless prepared
	// The positional texts in the driver's placeholders (Rebind).
	query, listQuery, lockQuery string
	orders                      *ordersStmts // the orders ops' texts and statements (orders.go)
}

// New wraps db in an *sqlx.DB (which sends nothing) and, when prepared, prepares the
// statements once now.
func New(ctx context.Context, db *sql.DB, o server.LayerOptions) (*Store, error) {
	driver := "mysql"
	if o.Postgres {
		driver = "pgx"
	}
	s := &Store{db: jsqlx.NewDb(db, driver)}
	s.query, s.listQuery, s.lockQuery = s.db.Rebind(Query), s.db.Rebind(ListQuery), s.db.Rebind(LockQuery)
	s.orders = newOrdersStmts(s.db, o.Prepared)
	if !o.Prepared {
		return s, nil
	}
	var err error
	for _, p := range []struct {
		stmt  **jsqlx.Stmt
		query string
	}{{&s.get, Query}, {&s.list, ListQuery}, {&s.lock, LockQuery}} {
		if *p.stmt, err = s.db.PreparexContext(ctx, p.query); err != nil {
			return nil, fmt.Errorf("sqlx: prepare %q: %w", p.query, err)
		}
	}
	if s.insert, err = s.db.PrepareNamedContext(ctx, InsertQuery); err != nil {
		return nil, fmt.Errorf("sqlx: prepare %q: %w", InsertQuery, err)
	}
	if s.increment, err = s.db.PrepareNamedContext(ctx, UpdateQuery); err != nil {
		return nil, fmt.Errorf("sqlx: prepare %q: %w", UpdateQuery, err)
	}
	return s, nil
}

// Find implements server.Finder. GetContext returns sql.ErrNoRows for a missing row.
//
// The not-found mapping is bun.go's on purpose: every layer is self-contained
// (layers.go).
func (s *Store) Find(ctx context.Context, id uint32) (server.User, error) {
	var u user
	var err error
	if s.get != nil {
		err = s.get.GetContext(ctx, &u, id)
	} else {
		err = s.db.GetContext(ctx, &u, s.query, id)
	}
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return server.User{}, server.ErrNotFound
		}
		return server.User{}, err
	}
	return server.User{ID: u.ID, Name: u.Name}, nil
}

// List implements server.Store: SelectContext scans the rows into a slice of structs.
//
// The copy into server.User is bun.go's and gorm.go's on purpose: every layer is
// self-contained (layers.go).
func (s *Store) List(ctx context.Context, after uint32, limit int) ([]server.User, error) {
	users := make([]user, 0, limit)
	var err error
	if s.list != nil {
		err = s.list.SelectContext(ctx, &users, after, limit)
	} else {
		err = s.db.SelectContext(ctx, &users, s.listQuery, after, limit)
	}
	if err != nil {
		return nil, err
	}
	out := make([]server.User, len(users))
	for i, u := range users {
		out[i] = server.User{ID: u.ID, Name: u.Name}
	}
	return out, nil
}

// Insert implements server.Store: NamedExecContext binds the struct's name.
//
// The statement-or-query switch and LastInsertId are raw.go's on purpose: every layer is
// self-contained (layers.go).
func (s *Store) Insert(ctx context.Context, name string) (server.User, error) {
	u := user{Name: name}
	if s.db.DriverName() == "pgx" {
		return s.insertReturning(ctx, u)
	}
	var res sql.Result
	var err error
	if s.insert != nil {
		res, err = s.insert.ExecContext(ctx, u)
	} else {
		res, err = s.db.NamedExecContext(ctx, InsertQuery, u)
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

// insertReturning is Insert on PostgreSQL: NamedQueryContext, its one row the new id.
func (s *Store) insertReturning(ctx context.Context, u user) (server.User, error) {
	rows, err := s.db.NamedQueryContext(ctx, InsertReturning, u)
	if err != nil {
		return server.User{}, err
	}
	defer rows.Close()
	if !rows.Next() {
		return server.User{}, errors.Join(errors.New("sqlx: INSERT … RETURNING id returned no row"), rows.Err())
	}
	if err := rows.Scan(&u.ID); err != nil {
		return server.User{}, err
	}
	return server.User{ID: u.ID, Name: u.Name}, rows.Close()
}

// Visit implements server.Store: BeginTxx, the row read FOR UPDATE into a struct, the
// struct's counter incremented and written back with a named statement, Commit.
func (s *Store) Visit(ctx context.Context, id uint32) (server.Visits, error) {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return server.Visits{}, err
	}
	defer tx.Rollback() // a no-op after Commit
	var v visit
	if s.lock != nil {
		err = tx.StmtxContext(ctx, s.lock).GetContext(ctx, &v, id)
	} else {
		err = tx.GetContext(ctx, &v, s.lockQuery, id)
	}
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return server.Visits{}, server.ErrNotFound
		}
		return server.Visits{}, err
	}
	v.Visits++
	if s.increment != nil {
		_, err = tx.NamedStmtContext(ctx, s.increment).ExecContext(ctx, v)
	} else {
		_, err = tx.NamedExecContext(ctx, UpdateQuery, v)
	}
	if err != nil {
		return server.Visits{}, err
	}
	if err := tx.Commit(); err != nil {
		return server.Visits{}, err
	}
	return server.Visits{ID: v.ID, Visits: v.Visits}, nil
}
