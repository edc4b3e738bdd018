package pgxnative

import (
	"context"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"

	"dbbench/go/layers/pgx"
	"dbbench/go/server"
)

// Fetches are the forms the layer offers: layer pgx's, the same SQL by hand (for one
// user, eager and lazy are the same two statements, so join and eager).
var Fetches = server.Fetches{
	One:  []string{server.FetchJoin, server.FetchEager},
	List: []string{server.FetchJoin, server.FetchEager, server.FetchLazy},
}

// UserOrders implements server.Related: layer pgx's statements (pgx/orders.go) on the
// pool.
//
// This file mirrors pgx/orders.go (its forms and scan loops) on purpose: every layer
// is self-contained (layers.go).
func (s *Store) UserOrders(ctx context.Context, id uint32, limit int, fetch string) (server.UserOrders, error) {
	if fetch == server.FetchJoin {
		us, err := s.joined(ctx, pgx.OrdersJoinQuery, id, limit)
		if err != nil {
			return server.UserOrders{}, err
		}
		if len(us) == 0 {
			return server.UserOrders{}, server.ErrNotFound
		}
		return us[0], nil
	}
	u, err := s.Find(ctx, id)
	if err != nil {
		return server.UserOrders{}, err
	}
	out := server.UserOrders{ID: u.ID, Name: u.Name}
	out.Orders, err = s.latest(ctx, id, limit)
	return out, err
}

// ListOrders implements server.Related.
func (s *Store) ListOrders(ctx context.Context, after uint32, limit, per int, fetch string) ([]server.UserOrders, error) {
	if fetch == server.FetchJoin {
		us, err := s.joined(ctx, pgx.ListOrdersJoinQuery, after, limit)
		server.TrimLatest(us, per)
		return us, err
	}
	users, err := s.List(ctx, after, limit)
	if err != nil || len(users) == 0 {
		return nil, err
	}
	out := make([]server.UserOrders, len(users))
	for i, u := range users {
		out[i] = server.UserOrders{ID: u.ID, Name: u.Name}
	}
	if fetch == server.FetchLazy {
		for i := range out { // a statement per user: 1 + N
			if out[i].Orders, err = s.latest(ctx, out[i].ID, per); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return out, s.eager(ctx, out, per)
}

// latest reads one user's latest limit orders.
func (s *Store) latest(ctx context.Context, user uint32, limit int) ([]server.Order, error) {
	rows, err := s.pool.Query(ctx, pgx.OrdersQuery, user, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	orders := make([]server.Order, 0, limit)
	for rows.Next() {
		var o server.Order
		if err := rows.Scan(&o.ID, &o.Total); err != nil {
			return nil, err
		}
		orders = append(orders, o)
	}
	return orders, rows.Err()
}

// eager reads the orders of every user of out in one statement and keeps each one's
// latest per. The IN list of $n is layer pgx's text, so that the two layers differ by
// database/sql only (pgx alone would also take = ANY($1) with a slice).
func (s *Store) eager(ctx context.Context, out []server.UserOrders, per int) error {
	args := make([]any, len(out))
	marks := make([]string, len(out))
	at := make(map[uint32]int, len(out))
	for i, u := range out {
		args[i], marks[i], at[u.ID] = u.ID, "$"+strconv.Itoa(i+1), i
	}
	q := strings.Replace(pgx.OrdersInQuery, "%s", strings.Join(marks, ","), 1)
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var user uint32
		var o server.Order
		if err := rows.Scan(&user, &o.ID, &o.Total); err != nil {
			return err
		}
		if i, ok := at[user]; ok && len(out[i].Orders) < per {
			out[i].Orders = append(out[i].Orders, o)
		}
	}
	return rows.Err()
}

// joined reads a join's rows, users in order, each user's orders after it (NULL
// columns, pgtype's Valid false: a user without orders). pgtype.Int8 and Int4 are pgx's
// own nullable types, database/sql's sql.NullInt64 in layer pgx.
func (s *Store) joined(ctx context.Context, q string, args ...any) ([]server.UserOrders, error) {
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []server.UserOrders
	for rows.Next() {
		var u server.User
		var id pgtype.Int8
		var total pgtype.Int4
		if err := rows.Scan(&u.ID, &u.Name, &id, &total); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].ID != u.ID {
			out = append(out, server.UserOrders{ID: u.ID, Name: u.Name})
		}
		if id.Valid {
			last := &out[len(out)-1]
			last.Orders = append(last.Orders, server.Order{ID: uint32(id.Int64), Total: uint32(total.Int32)})
		}
	}
	return out, rows.Err()
}
