package bun

import (
	"context"
	"database/sql"
	"errors"

	bunorm "github.com/uptrace/bun"

	"dbbench/go/server"
)

// Fetches are the forms the layer offers: eager only, Relation("Orders", …), bun's
// loading of a has-many relation (the users, then one SELECT … WHERE user_id IN (…)).
// No join: bun joins only has-one and belongs-to relations into the users' statement.
// No lazy: bun loads nothing it was not asked for in the query.
var Fetches = server.Fetches{
	One:  []string{server.FetchEager},
	List: []string{server.FetchEager},
}

// order maps the orders row; user.Orders joins its user_id to users.id.
type order struct {
	bunorm.BaseModel `bun:"table:orders"`

	ID     uint32 `bun:"id,pk"`
	UserID uint32 `bun:"user_id"`
	Total  uint32 `bun:"total"`
}

// UserOrders implements server.Related: Find's select with Relation("Orders", …), the
// relation's query ordered and limited (one user: the limit is theirs alone). bun runs
// it only when the user's row was found; like every statement of bun's, with the
// values formatted into its text.
//
// The not-found mapping and the copy are Find's.
func (s *Store) UserOrders(ctx context.Context, id uint32, limit int, _ string) (server.UserOrders, error) {
	m := user{ID: id}
	err := s.db.NewSelect().Model(&m).WherePK().
		Relation("Orders", func(q *bunorm.SelectQuery) *bunorm.SelectQuery {
			return q.Order("id DESC").Limit(int64(limit))
		}).
		Scan(ctx)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return server.UserOrders{}, server.ErrNotFound
		}
		return server.UserOrders{}, err
	}
	return server.UserOrders{ID: m.ID, Name: m.Name, Orders: orders(m.Orders, limit)}, nil
}

// ListOrders implements server.Related: List's select with Relation("Orders", …). The
// relation's query reads every order of the page: a Limit there would bound the whole
// IN (…) query, not each user's orders, so each user's latest per are kept here.
func (s *Store) ListOrders(ctx context.Context, after uint32, limit, per int, _ string) ([]server.UserOrders, error) {
	ms := make([]user, 0, limit)
	err := s.db.NewSelect().Model(&ms).Where("id > ?", after).Order("id").Limit(int64(limit)).
		Relation("Orders", func(q *bunorm.SelectQuery) *bunorm.SelectQuery { return q.Order("id DESC") }).
		Scan(ctx)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	out := make([]server.UserOrders, len(ms))
	for i, m := range ms {
		out[i] = server.UserOrders{ID: m.ID, Name: m.Name, Orders: orders(m.Orders, per)}
	}
	return out, nil
}

// orders copies a user's first n orders (highest id first) into the body's.
func orders(ms []*order, n int) []server.Order {
	out := make([]server.Order, 0, min(len(ms), n))
	for _, o := range ms[:min(len(ms), n)] {
		out = append(out, server.Order{ID: o.ID, Total: o.Total})
	}
	return out
}
