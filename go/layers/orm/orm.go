// Package orm is the orm layer: a Beego ORM v2 model read with Ormer.Read by primary key.
package orm

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	beego "github.com/beego/beego/v2/client/orm"

	"dbbench/go/server"
)

// stmtCacheSize is beego's MaxStmtCacheSize for stmt=prepared: Read sends one SQL
// text, so any size of at least 1 keeps it for good.
const stmtCacheSize = 8

// alias is the name beego's registry knows the database by; its Ormer needs "default".
const alias = "default"

type user struct {
	ID   uint32 `orm:"column(id);pk"`
	Name string `orm:"column(name);size(64)"`
}

func (*user) TableName() string { return "users" }

// Stmts are the statement modes the layer offers: all of them.
var Stmts = server.AllStmts

// Finder reads users through a beego Ormer.
type Finder struct {
	o beego.Ormer
}

// New registers the model and db with beego and returns a Finder. Beego keeps both in
// process-wide registries, so New works once per process. Registering db makes beego
// ping it and send two queries (time zone and default engine) once.
func New(_ context.Context, db *sql.DB, prepared bool) (*Finder, error) {
	var opts []beego.DBOption
	if prepared {
		opts = append(opts, beego.MaxStmtCacheSize(stmtCacheSize))
	}
	beego.RegisterModel(new(user))
	if err := beego.AddAliasWthDB(alias, "mysql", db, opts...); err != nil {
		return nil, fmt.Errorf("orm: register database with beego: %w", err)
	}
	return &Finder{o: beego.NewOrmUsingDB(alias)}, nil
}

// Find implements server.Finder.
func (f *Finder) Find(ctx context.Context, id uint32) (u server.User, err error) {
	// With the statement cache on, beego panics when it cannot prepare (the database is
	// gone before the statement was first cached): that is a database failure, a 503.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("orm: beego panicked: %v", p)
		}
	}()
	m := user{ID: id}
	if err := f.o.ReadWithCtx(ctx, &m); err != nil {
		if errors.Is(err, beego.ErrNoRows) {
			return server.User{}, server.ErrNotFound
		}
		return server.User{}, err
	}
	return server.User{ID: m.ID, Name: m.Name}, nil
}
