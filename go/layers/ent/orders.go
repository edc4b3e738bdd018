package ent

import (
	"context"

	entsql "entgo.io/ent/dialect/sql"

	"dbbench/go/layers/ent/entdb"
	"dbbench/go/layers/ent/entdb/order"
	"dbbench/go/layers/ent/entdb/user"
	"dbbench/go/server"
)

// Fetches are the forms the layer offers, by the users→orders edge of the generated
// client (entdb/schema): eager is WithOrders, ent's eager loading (the users, then one
// query for all their orders, WHERE user_id IN (…)); lazy is QueryOrders on each user,
// ent's way to walk an edge from an entity it holds (a query per user, 1 + N). No join:
// ent has no form that reads a has-many edge in the users' statement.
var Fetches = server.Fetches{
	One:  []string{server.FetchEager, server.FetchLazy},
	List: []string{server.FetchEager, server.FetchLazy},
}

// latestFirst orders a user's orders highest id first.
var latestFirst = order.ByID(entsql.OrderDesc())

// UserOrders implements server.Related. Eager: Query().Where(user.ID(id)).WithOrders
// (…).Only, the edge's query ordered and limited (one user: the limit is theirs alone).
// Lazy: Get, then QueryOrders on the entity.
//
// The not-found mapping is Find's.
func (s *Store) UserOrders(ctx context.Context, id uint32, limit int, fetch string) (server.UserOrders, error) {
	var (
		u       *entdb.User
		related []*entdb.Order
		err     error
	)
	if fetch == server.FetchLazy {
		if u, err = s.client.User.Get(ctx, id); err == nil {
			related, err = u.QueryOrders().Order(latestFirst).Limit(limit).All(ctx)
		}
	} else {
		u, err = s.client.User.Query().
			Where(user.ID(id)).
			WithOrders(func(q *entdb.OrderQuery) { q.Order(latestFirst).Limit(limit) }).
			Only(ctx)
		if err == nil {
			related = u.Edges.Orders
		}
	}
	if err != nil {
		if entdb.IsNotFound(err) {
			return server.UserOrders{}, server.ErrNotFound
		}
		return server.UserOrders{}, err
	}
	return server.UserOrders{ID: u.ID, Name: u.Name, Orders: orders(related, limit)}, nil
}

// ListOrders implements server.Related: List's query with WithOrders (eager), or List's
// query and then QueryOrders per user (lazy). WithOrders reads every order of the page:
// a Limit on the edge's query would bound the whole IN (…) query, not each user's
// orders, so each user's latest per are kept here.
func (s *Store) ListOrders(ctx context.Context, after uint32, limit, per int, fetch string) ([]server.UserOrders, error) {
	q := s.client.User.Query().
		Where(user.IDGT(after)).
		Order(user.ByID()).
		Limit(limit)
	if fetch == server.FetchEager {
		q = q.WithOrders(func(q *entdb.OrderQuery) { q.Order(latestFirst) })
	}
	us, err := q.All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]server.UserOrders, len(us))
	for i, u := range us {
		related := u.Edges.Orders
		if fetch == server.FetchLazy {
			if related, err = u.QueryOrders().Order(latestFirst).Limit(per).All(ctx); err != nil {
				return nil, err
			}
		}
		out[i] = server.UserOrders{ID: u.ID, Name: u.Name, Orders: orders(related, per)}
	}
	return out, nil
}

// orders copies a user's first n entities (highest id first) into the body's orders.
func orders(related []*entdb.Order, n int) []server.Order {
	out := make([]server.Order, 0, min(len(related), n))
	for _, o := range related[:min(len(related), n)] {
		out = append(out, server.Order{ID: o.ID, Total: o.Total})
	}
	return out
}
