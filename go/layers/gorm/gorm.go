// Package gorm is the gorm layer: a GORM model read with First by primary key, listed
// with Where/Order/Limit/Find, created with Create and updated by a First under
// clause.Locking and Save in a Transaction, GORM's documented way for each.
package gorm

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	gormmysql "gorm.io/driver/mysql"
	gormpostgres "gorm.io/driver/postgres"
	gormio "gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"

	"dbbench/go/server"
)

// user maps the whole row; GORM's First and Find select * either way. Orders is its
// has-many association (orders.go), filled only by a Preload: no other op reads or
// writes it (GORM saves an association only when it holds rows).
type user struct {
	ID     uint32 `gorm:"primaryKey"`
	Name   string
	Visits uint32
	Orders []order
}

func (user) TableName() string { return "users" }

// Stmts are the statement modes the layer offers on MySQL: all of them.
var Stmts = server.AllStmts

// Store works through a *gorm.DB with GORM's defaults: in particular every Create runs
// in a transaction of its own (SkipDefaultTransaction false), as in any GORM app that
// did not turn it off.
type Store struct {
	db *gormio.DB
	// wheres are get's statement texts when it reads through a working set
	// (server.StatementTexts of an inline condition); nil reads by First(&m, id).
	wheres []string
}

// New opens GORM on db with its MySQL dialector, or its PostgreSQL one (gorm.io/driver/
// postgres, on the pool gotarget opened with pgx). o.Prepared sets PrepareStmt, GORM's
// cache of one *sql.Stmt per SQL text, which its transactions use too (bound with
// tx.StmtContext). Opening makes GORM ping db and, on MySQL, send SELECT VERSION() once
// (to learn the server's dialect).
func New(_ context.Context, db *sql.DB, o server.LayerOptions) (*Store, error) {
	dialector := gormmysql.New(gormmysql.Config{Conn: db})
	if o.Postgres {
		dialector = gormpostgres.New(gormpostgres.Config{Conn: db})
	}
	g, err := gormio.Open(dialector, &gormio.Config{
		PrepareStmt: o.Prepared,
		Logger:      logger.Discard, // a miss is a 404, not a log line per request
	})
	if err != nil {
		return nil, fmt.Errorf("gorm: open: %w", err)
	}
	s := &Store{db: g}
	if o.Texts > 1 {
		s.wheres = server.StatementTexts("id = ?", o.Texts)
	}
	return s, nil
}

// Find implements server.Finder.
//
// The not-found mapping and the copy into server.User are bun.go's on purpose: every
// layer is self-contained (layers.go).
func (s *Store) Find(ctx context.Context, id uint32) (server.User, error) {
	var m user
	q := s.db.WithContext(ctx)
	if s.wheres != nil {
		// First's inline condition, numbered: GORM's PrepareStmt caches one
		// *sql.Stmt per text (and database/sql one per connection under it).
		q = q.First(&m, server.TextOf(id, s.wheres), id)
	} else {
		q = q.First(&m, id)
	}
	if err := q.Error; err != nil {
		if errors.Is(err, gormio.ErrRecordNotFound) {
			return server.User{}, server.ErrNotFound
		}
		return server.User{}, err
	}
	return server.User{ID: m.ID, Name: m.Name}, nil
}

// List implements server.Store: Where("id > ?").Order("id").Limit(n).Find, the limit a
// bound argument (LIMIT ?).
//
// The copy into server.User is bun.go's on purpose: every layer is self-contained
// (layers.go).
func (s *Store) List(ctx context.Context, after uint32, limit int) ([]server.User, error) {
	ms := make([]user, 0, limit)
	if err := s.db.WithContext(ctx).Where("id > ?", after).Order("id").Limit(limit).Find(&ms).Error; err != nil {
		return nil, err
	}
	out := make([]server.User, len(ms))
	for i, m := range ms {
		out[i] = server.User{ID: m.ID, Name: m.Name}
	}
	return out, nil
}

// Insert implements server.Store: Create, in GORM's default transaction, sets the
// model's id from LastInsertId.
//
// Its shape is bun.go's on purpose: every layer is self-contained (layers.go).
func (s *Store) Insert(ctx context.Context, name string) (server.User, error) {
	m := user{Name: name}
	if err := s.db.WithContext(ctx).Create(&m).Error; err != nil {
		return server.User{}, err
	}
	return server.User{ID: m.ID, Name: m.Name}, nil
}

// Visit implements server.Store: Transaction (BEGIN … COMMIT, ROLLBACK when the function
// returns an error), First with clause.Locking{Strength: "UPDATE"} (… FOR UPDATE), the
// model's counter incremented, Save (an UPDATE of every column).
func (s *Store) Visit(ctx context.Context, id uint32) (server.Visits, error) {
	var m user
	err := s.db.WithContext(ctx).Transaction(func(tx *gormio.DB) error {
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&m, id).Error; err != nil {
			return err
		}
		m.Visits++
		return tx.Save(&m).Error
	})
	if err != nil {
		if errors.Is(err, gormio.ErrRecordNotFound) {
			return server.Visits{}, server.ErrNotFound
		}
		return server.Visits{}, err
	}
	return server.Visits{ID: m.ID, Visits: m.Visits}, nil
}
