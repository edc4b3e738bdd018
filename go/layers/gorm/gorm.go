// Package gorm is the gorm layer: a GORM model read with First by primary key.
package gorm

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	gormmysql "gorm.io/driver/mysql"
	gormio "gorm.io/gorm"
	"gorm.io/gorm/logger"

	"dbbench/go/server"
)

type user struct {
	ID   uint32 `gorm:"primaryKey"`
	Name string
}

func (user) TableName() string { return "users" }

// Stmts are the statement modes the layer offers: all of them.
var Stmts = server.AllStmts

// Finder reads users through a *gorm.DB.
type Finder struct {
	db *gormio.DB
}

// New opens GORM on db. prepared sets PrepareStmt, GORM's cache of one *sql.Stmt per
// SQL text. Opening makes GORM ping db and send SELECT VERSION() once (to learn the
// server's dialect).
func New(_ context.Context, db *sql.DB, prepared bool) (*Finder, error) {
	g, err := gormio.Open(gormmysql.New(gormmysql.Config{Conn: db}), &gormio.Config{
		PrepareStmt: prepared,
		Logger:      logger.Discard, // a miss is a 404, not a log line per request
	})
	if err != nil {
		return nil, fmt.Errorf("gorm: open: %w", err)
	}
	return &Finder{db: g}, nil
}

// Find implements server.Finder.
func (f *Finder) Find(ctx context.Context, id uint32) (server.User, error) {
	var m user
	if err := f.db.WithContext(ctx).First(&m, id).Error; err != nil {
		if errors.Is(err, gormio.ErrRecordNotFound) {
			return server.User{}, server.ErrNotFound
		}
		return server.User{}, err
	}
	return server.User{ID: m.ID, Name: m.Name}, nil
}
