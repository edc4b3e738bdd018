// Package ent is the ent layer: entgo.io/ent v0.14.5 on the shared pool, the users
// table read through the client generated from entdb/schema with
// client.User.Get(ctx, id). The generated code in entdb is committed; `make
// ent-generate` regenerates it with the ent version go.mod pins. Nothing runs ent's
// migrations: the table exists, and the layer alters nothing.
//
// Kind: orm. The read goes through a generated, mapped model: ent builds the SELECT
// from the schema and scans the row into an *entdb.User.
//
// Per request: Get is Query().Where(user.ID(id)).Only(ctx), which asks for at most two
// rows (LIMIT 2, to tell "one" from "not singular") and hands the SQL with the id as a
// bound argument to database/sql's QueryContext, so go-sql-driver/mysql decides the
// protocol as it does for raw.
//
// Statement modes: prepare (interpolateParams=false: the driver prepares, executes and
// closes) and interpolate (interpolateParams=true: one text query). Not prepared: ent
// has no statement cache and no way to run a query on a prepared statement; its driver
// (entgo.io/ent/dialect/sql) only calls ExecContext and QueryContext. A cache would be
// this project's own code under ent (an ExecQuerier wrapper), not ent's feature, so New
// refuses prepared.
package ent

import (
	"context"
	"database/sql"
	"errors"

	"entgo.io/ent/dialect"
	entsql "entgo.io/ent/dialect/sql"

	"dbbench/go/layers/ent/entdb"
	"dbbench/go/server"
)

// Stmts are the statement modes the layer offers: not prepared, see above.
var Stmts = []string{server.Prepare, server.Interpolate}

// ErrPrepared is New's answer to prepared=true.
var ErrPrepared = errors.New("ent: stmt=prepared is not possible: ent has no statement cache and never " +
	"prepares a statement itself (stmt=prepare and stmt=interpolate apply)")

// Finder reads users through a generated ent client.
type Finder struct {
	client *entdb.Client
}

// New opens an ent client on db, which sends nothing; it refuses prepared.
func New(_ context.Context, db *sql.DB, prepared bool) (*Finder, error) {
	if prepared {
		return nil, ErrPrepared
	}
	drv := entsql.OpenDB(dialect.MySQL, db)
	return &Finder{client: entdb.NewClient(entdb.Driver(drv))}, nil
}

// Find implements server.Finder. Get returns an *entdb.NotFoundError for a missing row.
func (f *Finder) Find(ctx context.Context, id uint32) (server.User, error) {
	u, err := f.client.User.Get(ctx, id)
	if err != nil {
		if entdb.IsNotFound(err) {
			return server.User{}, server.ErrNotFound
		}
		return server.User{}, err
	}
	return server.User{ID: u.ID, Name: u.Name}, nil
}
