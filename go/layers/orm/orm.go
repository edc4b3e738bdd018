// Package orm is the orm layer: a Beego ORM v2 model, read with Ormer.Read by primary
// key, listed with a QuerySeter, inserted with Insert, and updated by a read FOR UPDATE
// (ReadForUpdate) and Update in a transaction.
package orm

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	beego "github.com/beego/beego/v2/client/orm"

	"dbbench/go/server"
)

// stmtCacheSize is beego's MaxStmtCacheSize for stmt=prepared: the ops send six SQL
// texts (list one per limit), the orders ops LoadRelated's one per limit more, so the
// cache keeps them all for good.
const stmtCacheSize = 16

// alias is the name beego's registry knows the database by; its Ormer needs "default".
const alias = "default"

// user maps the whole row. Beego keeps one model per table (registering a second model
// of "users" is silently ignored), so the model every op uses has every column, and
// Read selects all three. Orders is the reverse side of order.User (orders.go), no
// column: only LoadRelated fills it.
type user struct {
	ID     uint32   `orm:"column(id);pk;auto"`
	Name   string   `orm:"column(name);size(64)"`
	Visits uint32   `orm:"column(visits)"`
	Orders []*order `orm:"reverse(many)"`
}

func (*user) TableName() string { return "users" }

// Stmts are the statement modes the layer offers: all of them.
var Stmts = server.AllStmts

// Store works through a beego Ormer.
type Store struct {
	o beego.Ormer
}

// New registers the models and db with beego and returns a Store. Beego keeps both in
// process-wide registries, so New works once per process. Registering db makes beego
// ping it and send two queries (time zone and default engine) once.
func New(_ context.Context, db *sql.DB, o server.LayerOptions) (*Store, error) {
	var opts []beego.DBOption
	if o.Prepared {
		opts = append(opts, beego.MaxStmtCacheSize(stmtCacheSize))
	}
	beego.RegisterModel(new(user), new(order))
	if err := beego.AddAliasWthDB(alias, "mysql", db, opts...); err != nil {
		return nil, fmt.Errorf("orm: register database with beego: %w", err)
	}
	return &Store{o: beego.NewOrmUsingDB(alias)}, nil
}

// recovered turns a beego panic into a database failure: with the statement cache on,
// beego panics when it cannot prepare (the database is gone before the statement was
// first cached), which is a 503, not a crash.
func recovered(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("orm: beego panicked: %v", p)
	}
}

// Find implements server.Finder.
func (s *Store) Find(ctx context.Context, id uint32) (u server.User, err error) {
	defer recovered(&err)
	m := user{ID: id}
	if err := s.o.ReadWithCtx(ctx, &m); err != nil {
		if errors.Is(err, beego.ErrNoRows) {
			return server.User{}, server.ErrNotFound
		}
		return server.User{}, err
	}
	return server.User{ID: m.ID, Name: m.Name}, nil
}

// List implements server.Store: QueryTable(…).Filter("id__gt", after).OrderBy("id")
// .Limit(limit).All, beego's query set (the limit is written into the text).
func (s *Store) List(ctx context.Context, after uint32, limit int) (out []server.User, err error) {
	defer recovered(&err)
	var ms []*user
	_, err = s.o.QueryTable(new(user)).
		Filter("id__gt", after).
		OrderBy("id").
		Limit(limit).
		AllWithCtx(ctx, &ms)
	if err != nil && !errors.Is(err, beego.ErrNoRows) {
		return nil, err
	}
	out = make([]server.User, len(ms))
	for i, m := range ms {
		out[i] = server.User{ID: m.ID, Name: m.Name}
	}
	return out, nil
}

// Insert implements server.Store: Insert writes every column but the auto-increment
// key (name, and visits at its zero value) and sets the model's id from LastInsertId.
func (s *Store) Insert(ctx context.Context, name string) (u server.User, err error) {
	defer recovered(&err)
	m := user{Name: name}
	if _, err := s.o.InsertWithCtx(ctx, &m); err != nil {
		return server.User{}, err
	}
	return server.User{ID: m.ID, Name: m.Name}, nil
}

// Visit implements server.Store: BeginWithCtx, ReadForUpdate (Read with FOR UPDATE),
// the model's counter incremented, Update (every column but the key), Commit. Not
// DoTxWithCtx: beego logs a failed commit there and returns nil, which would answer 200
// for an increment that never happened.
func (s *Store) Visit(ctx context.Context, id uint32) (v server.Visits, err error) {
	defer recovered(&err)
	tx, err := s.o.BeginWithCtx(ctx)
	if err != nil {
		return server.Visits{}, err
	}
	defer tx.RollbackUnlessCommit()
	m := user{ID: id}
	if err := tx.ReadForUpdateWithCtx(ctx, &m); err != nil {
		if errors.Is(err, beego.ErrNoRows) {
			return server.Visits{}, server.ErrNotFound
		}
		return server.Visits{}, err
	}
	m.Visits++
	if _, err := tx.UpdateWithCtx(ctx, &m); err != nil {
		return server.Visits{}, err
	}
	if err := tx.Commit(); err != nil {
		return server.Visits{}, err
	}
	return server.Visits{ID: m.ID, Visits: m.Visits}, nil
}
