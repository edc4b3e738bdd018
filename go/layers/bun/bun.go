// Package bun is the bun layer: uptrace/bun v1.3.0 with dialect/mysqldialect v1.3.0 on
// the shared pool, a model read with NewSelect().Model(&u).WherePK().Scan(ctx).
//
// Kind: orm. The read goes through a mapped model: the struct names its table and
// primary key in bun tags, bun writes the SELECT from that mapping and scans the row
// back into the model.
//
// Per request: bun builds the SELECT for the model and formats the id into the SQL
// text itself, client-side, then calls database/sql's QueryContext with the finished
// text and no arguments (query_base.go _scan: QueryContext(ctx, query)). With no
// arguments go-sql-driver/mysql sends one COM_QUERY whatever interpolateParams says.
//
// Statement modes: interpolate only (bun's own interpolation, not the driver's).
// prepare cannot exist: with interpolateParams=false the driver still receives no
// arguments and still sends the same one text query, so a "prepare" variant would
// measure interpolate under another name; the pool hides that flag from New, so the
// matrix has to leave it out. prepared cannot exist either: bun's query builder has no
// prepared-statement path (DB.PrepareContext only wraps database/sql's for hand-written
// SQL), and its text carries the id, so even a statement cache below bun would see a
// new text per id. New refuses prepared.
//
// Start-up: bun.NewDB runs the MySQL dialect's Init, one SELECT version() (to learn
// MariaDB's features), on a background context; if it fails bun only logs it with the
// standard logger and goes on.
package bun

import (
	"context"
	"database/sql"
	"errors"

	bunorm "github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"

	"dbbench/go/server"
)

// Stmts are the statement modes the layer offers: bun interpolates, see above.
var Stmts = []string{server.Interpolate}

// ErrPrepared is New's answer to prepared=true.
var ErrPrepared = errors.New("bun: stmt=prepared is not possible: bun formats the arguments into the SQL text " +
	"and sends it without arguments, so no statement is ever prepared (only stmt=interpolate applies)")

type user struct {
	bunorm.BaseModel `bun:"table:users"`

	ID   uint32 `bun:"id,pk"`
	Name string `bun:"name"`
}

// Finder reads users through a *bun.DB.
type Finder struct {
	db *bunorm.DB
}

// New opens bun on db, which sends SELECT version() once; it refuses prepared.
func New(_ context.Context, db *sql.DB, prepared bool) (*Finder, error) {
	if prepared {
		return nil, ErrPrepared
	}
	return &Finder{db: bunorm.NewDB(db, mysqldialect.New())}, nil
}

// Find implements server.Finder. Scan returns sql.ErrNoRows for a missing row.
func (f *Finder) Find(ctx context.Context, id uint32) (server.User, error) {
	m := user{ID: id}
	if err := f.db.NewSelect().Model(&m).WherePK().Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return server.User{}, server.ErrNotFound
		}
		return server.User{}, err
	}
	return server.User{ID: m.ID, Name: m.Name}, nil
}
