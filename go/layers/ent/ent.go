// Package ent is the ent layer: entgo.io/ent v0.14.5 on the shared pool, the users
// table through the client generated from entdb/schema: client.User.Get(ctx, id),
// Query().Where(user.IDGT(after)).Order(user.ByID()).Limit(n).All, Create().SetName
// .Save, and in a client.Tx a Query…ForUpdate().Only and Update().SetVisits.Save. The
// generated code in entdb is committed; `make ent-generate` regenerates it with the ent
// version go.mod pins and the sql/lock feature (ForUpdate). Nothing runs ent's
// migrations: the table exists, and the layer alters no schema.
//
// Kind: orm. Every op goes through a generated, mapped model: ent builds the SQL from
// the schema and scans rows into *entdb.User.
//
// Per request: Get is Query().Where(user.ID(id)).Only(ctx), which asks for at most two
// rows (LIMIT 2, to tell "one" from "not singular") and hands the SQL with the id as a
// bound argument to database/sql's QueryContext, so go-sql-driver/mysql decides the
// protocol as it does for raw; so for every statement of every op.
//
// Statement modes: prepare (interpolateParams=false: the driver prepares, executes and
// closes) and interpolate (interpolateParams=true: one text query). Not prepared: ent
// has no statement cache and no way to run a query on a prepared statement; its driver
// (entgo.io/ent/dialect/sql) only calls ExecContext and QueryContext. A cache would be
// this project's own code under ent (an ExecQuerier wrapper), not ent's feature, so New
// refuses prepared.
//
// On PostgreSQL the same client opens with dialect.Postgres ($1 placeholders, the
// insert's id by RETURNING) on the pool gotarget opened with pgx, whose execution
// modes are the layer's statement modes there.
package ent

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"dbbench/go/layers/ent/entdb"
	"dbbench/go/layers/ent/entdb/user"
	"dbbench/go/server"
)

// Stmts are the statement modes the layer offers on MySQL: not prepared, see above.
var Stmts = []string{server.Prepare, server.Interpolate}

// ErrPrepared is New's answer to prepared=true.
var ErrPrepared = errors.New("ent: stmt=prepared is not possible: ent has no statement cache and never " +
	"prepares a statement itself (stmt=prepare and stmt=interpolate apply)")

// Store works through a generated ent client.
type Store struct {
	client *entdb.Client
}

// New opens an ent client on db, which sends nothing; it refuses prepared.
func New(_ context.Context, db *sql.DB, o server.LayerOptions) (*Store, error) {
	if o.Prepared {
		return nil, ErrPrepared
	}
	d := dialect.MySQL
	if o.Postgres {
		d = dialect.Postgres
	}
	drv := entsql.OpenDB(d, db)
	return &Store{client: entdb.NewClient(entdb.Driver(drv))}, nil
}

// Find implements server.Finder. Get returns an *entdb.NotFoundError for a missing row.
//
// The not-found mapping is bun.go's on purpose: every layer is self-contained
// (layers.go).
func (s *Store) Find(ctx context.Context, id uint32) (server.User, error) {
	u, err := s.client.User.Get(ctx, id)
	if err != nil {
		if entdb.IsNotFound(err) {
			return server.User{}, server.ErrNotFound
		}
		return server.User{}, err
	}
	return server.User{ID: u.ID, Name: u.Name}, nil
}

// List implements server.Store: the entities in id order (ent writes the limit into the
// text).
//
// The copy into server.User is bun.go's on purpose: every layer is self-contained
// (layers.go).
func (s *Store) List(ctx context.Context, after uint32, limit int) ([]server.User, error) {
	us, err := s.client.User.Query().
		Where(user.IDGT(after)).
		Order(user.ByID()).
		Limit(limit).
		All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]server.User, len(us))
	for i, u := range us {
		out[i] = server.User{ID: u.ID, Name: u.Name}
	}
	return out, nil
}

// Insert implements server.Store: Create sets the name and visits' default (0), leaves
// the id to AUTO_INCREMENT and reads it from LastInsertId.
func (s *Store) Insert(ctx context.Context, name string) (server.User, error) {
	u, err := s.client.User.Create().SetName(name).Save(ctx)
	if err != nil {
		return server.User{}, err
	}
	return server.User{ID: u.ID, Name: u.Name}, nil
}

// Visit implements server.Store: client.Tx, the entity read with ForUpdate() (… FOR
// UPDATE), Update().SetVisits(visits+1).Save (which also reads the updated row back
// into the entity it returns), Commit; Rollback on any error.
func (s *Store) Visit(ctx context.Context, id uint32) (server.Visits, error) {
	tx, err := s.client.Tx(ctx)
	if err != nil {
		return server.Visits{}, err
	}
	v, err := visit(ctx, tx, id)
	if err != nil {
		if rerr := tx.Rollback(); rerr != nil {
			err = fmt.Errorf("%w (and rollback: %v)", err, rerr)
		}
		return server.Visits{}, err
	}
	if err := tx.Commit(); err != nil {
		return server.Visits{}, err
	}
	return v, nil
}

func visit(ctx context.Context, tx *entdb.Tx, id uint32) (server.Visits, error) {
	u, err := tx.User.Query().Where(user.ID(id)).ForUpdate().Only(ctx)
	if err != nil {
		if entdb.IsNotFound(err) {
			return server.Visits{}, server.ErrNotFound
		}
		return server.Visits{}, err
	}
	if u, err = u.Update().SetVisits(u.Visits + 1).Save(ctx); err != nil {
		return server.Visits{}, err
	}
	return server.Visits{ID: u.ID, Visits: u.Visits}, nil
}
