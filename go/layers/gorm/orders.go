package gorm

import (
	"context"
	"errors"

	gormio "gorm.io/gorm"

	"dbbench/go/server"
)

// Fetches are the forms the layer offers: eager only, Preload("Orders", …), GORM's
// eager loading of a has-many association (the users, then one SELECT … WHERE user_id
// IN (…)). No join: GORM's Joins loads belongs-to and has-one associations, not
// has-many. No lazy: GORM has no lazy loading (an association not preloaded stays
// empty), and a hand-written query per user would be raw's form, not GORM's.
var Fetches = server.Fetches{
	One:  []string{server.FetchEager},
	List: []string{server.FetchEager},
}

// order maps the orders row; user_id is user.Orders' foreign key by GORM's naming
// convention (the owner's type name and its primary key's field).
type order struct {
	ID     uint32 `gorm:"primaryKey"`
	UserID uint32
	Total  uint32
}

func (order) TableName() string { return "orders" }

// UserOrders implements server.Related: First with Preload("Orders", …), the preload
// ordered and limited (one user: the limit is theirs alone). GORM preloads nothing
// when First finds no row.
//
// The not-found mapping and the copy are Find's.
func (s *Store) UserOrders(ctx context.Context, id uint32, limit int, _ string) (server.UserOrders, error) {
	var m user
	err := s.db.WithContext(ctx).
		Preload("Orders", func(db *gormio.DB) *gormio.DB { return db.Order("id DESC").Limit(limit) }).
		First(&m, id).Error
	if err != nil {
		if errors.Is(err, gormio.ErrRecordNotFound) {
			return server.UserOrders{}, server.ErrNotFound
		}
		return server.UserOrders{}, err
	}
	return server.UserOrders{ID: m.ID, Name: m.Name, Orders: orders(m.Orders, limit)}, nil
}

// ListOrders implements server.Related: List's query with Preload("Orders", …). The
// preload reads every order of the page: GORM puts a Limit given in Preload's function
// on the whole IN (…) query, not on each user's orders, so each user's latest per are
// kept here.
func (s *Store) ListOrders(ctx context.Context, after uint32, limit, per int, _ string) ([]server.UserOrders, error) {
	ms := make([]user, 0, limit)
	err := s.db.WithContext(ctx).
		Preload("Orders", func(db *gormio.DB) *gormio.DB { return db.Order("id DESC") }).
		Where("id > ?", after).Order("id").Limit(limit).
		Find(&ms).Error
	if err != nil {
		return nil, err
	}
	out := make([]server.UserOrders, len(ms))
	for i, m := range ms {
		out[i] = server.UserOrders{ID: m.ID, Name: m.Name, Orders: orders(m.Orders, per)}
	}
	return out, nil
}

// orders copies a user's first n orders (highest id first) into the body's.
func orders(ms []order, n int) []server.Order {
	out := make([]server.Order, 0, min(len(ms), n))
	for _, o := range ms[:min(len(ms), n)] {
		out = append(out, server.Order{ID: o.ID, Total: o.Total})
	}
	return out
}
