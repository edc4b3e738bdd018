// Package bun is the bun layer: uptrace/bun v1.3.0 with dialect/mysqldialect v1.3.0 on
// the shared pool, a model read with NewSelect().Model(&u).WherePK().Scan(ctx), listed
// with NewSelect().Model(&users).Where/Order/Limit, inserted with NewInsert().Model, and
// updated in RunInTx by a NewSelect…For("UPDATE") and a NewUpdate().Model(&u).WherePK().
//
// Kind: orm. Every op goes through a mapped model: the struct names its table and
// primary key in bun tags, bun writes the SQL from that mapping and scans rows back into
// the model.
//
// Per request: bun builds the SQL for the model and formats every argument into the SQL
// text itself, client-side, then calls database/sql's QueryContext or ExecContext with
// the finished text and no arguments (query_base.go _scan: QueryContext(ctx, query)).
// With no arguments go-sql-driver/mysql sends one COM_QUERY whatever interpolateParams
// says; BEGIN and COMMIT are database/sql's (START TRANSACTION, COMMIT).
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
//
// On PostgreSQL (dialect/pgdialect v1.3.0, through pgx's database/sql driver) the same:
// bun formats every argument into the text and passes none, so of pgx's execution
// modes only simple_protocol sends what bun means, one text query; an insert reads its
// id with RETURNING, which the dialect adds for the autoincrement key.
package bun

import (
	"context"
	"database/sql"
	"errors"

	bunorm "github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/mysqldialect"
	"github.com/uptrace/bun/dialect/pgdialect"

	"dbbench/go/server"
)

// Stmts are the statement modes the layer offers on MySQL, PostgresStmts on
// PostgreSQL: bun interpolates, see above.
var (
	Stmts         = []string{server.Interpolate}
	PostgresStmts = []string{"simple_protocol"}
)

// ErrPrepared is New's answer to prepared=true.
var ErrPrepared = errors.New("bun: stmt=prepared is not possible: bun formats the arguments into the SQL text " +
	"and sends it without arguments, so no statement is ever prepared (only stmt=interpolate applies)")

// user maps the whole row; bun selects every mapped column. Orders is its has-many
// relation (orders.go), no column: only a select with Relation("Orders") reads it.
type user struct {
	bunorm.BaseModel `bun:"table:users"`

	ID     uint32   `bun:"id,pk,autoincrement"`
	Name   string   `bun:"name"`
	Visits uint32   `bun:"visits"`
	Orders []*order `bun:"rel:has-many,join:id=user_id"`
}

// Store works through a *bun.DB.
type Store struct {
	db *bunorm.DB
}

// New opens bun on db, which sends SELECT version() once on MySQL; it refuses prepared.
func New(_ context.Context, db *sql.DB, o server.LayerOptions) (*Store, error) {
	if o.Prepared {
		return nil, ErrPrepared
	}
	if o.Postgres {
		return &Store{db: bunorm.NewDB(db, pgdialect.New())}, nil
	}
	return &Store{db: bunorm.NewDB(db, mysqldialect.New())}, nil
}

// Find implements server.Finder. Scan returns sql.ErrNoRows for a missing row.
//
// gorm.go's, sqlx.go's and ent.go's Find map a missing row the same way on purpose:
// every layer is self-contained (layers.go).
func (s *Store) Find(ctx context.Context, id uint32) (server.User, error) {
	m := user{ID: id}
	if err := s.db.NewSelect().Model(&m).WherePK().Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return server.User{}, server.ErrNotFound
		}
		return server.User{}, err
	}
	return server.User{ID: m.ID, Name: m.Name}, nil
}

// List implements server.Store: the models scanned into a slice (no rows: an empty one,
// not sql.ErrNoRows, for a slice model).
//
// gorm.go, sqlx.go and ent.go copy their models into server.User this way on purpose:
// every layer is self-contained (layers.go).
func (s *Store) List(ctx context.Context, after uint32, limit int) ([]server.User, error) {
	ms := make([]user, 0, limit)
	err := s.db.NewSelect().Model(&ms).Where("id > ?", after).Order("id").Limit(int64(limit)).Scan(ctx)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	out := make([]server.User, len(ms))
	for i, m := range ms {
		out[i] = server.User{ID: m.ID, Name: m.Name}
	}
	return out, nil
}

// Insert implements server.Store: NewInsert().Model writes DEFAULT for the
// auto-increment key and sets it from LastInsertId (on PostgreSQL, from RETURNING).
//
// gorm.go's Insert has this shape on purpose: every layer is self-contained (layers.go).
func (s *Store) Insert(ctx context.Context, name string) (server.User, error) {
	m := user{Name: name}
	if _, err := s.db.NewInsert().Model(&m).Exec(ctx); err != nil {
		return server.User{}, err
	}
	return server.User{ID: m.ID, Name: m.Name}, nil
}

// Visit implements server.Store: RunInTx (BEGIN … COMMIT, ROLLBACK when the function
// returns an error), the model read with For("UPDATE"), its counter incremented, and
// NewUpdate().Model(&m).WherePK() (an UPDATE of every column).
func (s *Store) Visit(ctx context.Context, id uint32) (server.Visits, error) {
	m := user{ID: id}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bunorm.Tx) error {
		if err := tx.NewSelect().Model(&m).WherePK().For("UPDATE").Scan(ctx); err != nil {
			return err
		}
		m.Visits++
		_, err := tx.NewUpdate().Model(&m).WherePK().Exec(ctx)
		return err
	})
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return server.Visits{}, server.ErrNotFound
		}
		return server.Visits{}, err
	}
	return server.Visits{ID: m.ID, Visits: m.Visits}, nil
}
