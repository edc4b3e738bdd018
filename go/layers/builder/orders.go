package builder

import (
	"context"
	"database/sql"

	sq "github.com/Masterminds/squirrel"

	"dbbench/go/server"
)

// Fetches are the forms the layer offers: squirrel builds the SQL a person writes by
// hand, so its forms are raw's (for one user, eager and lazy are the same two
// statements: join and eager).
var Fetches = server.Fetches{
	One:  []string{server.FetchJoin, server.FetchEager},
	List: []string{server.FetchJoin, server.FetchEager, server.FetchLazy},
}

// The orders statements, built on every request. squirrel writes a LIMIT into the text
// (Limit takes a number), and an IN list as one placeholder per element, so under
// stmt=prepared the StmtCache holds one statement per limit and per page length.

// ordersJoin is one user's latest orders in one statement: "SELECT u.id, u.name, o.id,
// o.total FROM users u LEFT JOIN orders o ON o.user_id = u.id WHERE u.id = ? ORDER BY
// o.id DESC LIMIT 10". LEFT JOIN: a user without orders is still one row, its order
// columns NULL.
func (s *Store) ordersJoin(id uint32, limit int) sq.SelectBuilder {
	return s.sql.Select("u.id", "u.name", "o.id", "o.total").
		From("users u").
		LeftJoin("orders o ON o.user_id = u.id").
		Where(sq.Eq{"u.id": id}).
		OrderBy("o.id DESC").
		Limit(uint64(limit))
}

// latestOrders is one user's latest orders: "SELECT id, total FROM orders WHERE
// user_id = ? ORDER BY id DESC LIMIT 10", eager's second statement for one user and
// lazy's statement per user.
func (s *Store) latestOrders(user uint32, limit int) sq.SelectBuilder {
	return s.sql.Select("id", "total").
		From("orders").
		Where(sq.Eq{"user_id": user}).
		OrderBy("id DESC").
		Limit(uint64(limit))
}

// listOrdersJoin is a page of users with all their orders in one statement, the page a
// derived table (FromSelect): "SELECT u.id, u.name, o.id, o.total FROM (SELECT id, name
// FROM users WHERE id > ? ORDER BY id LIMIT 20) AS u LEFT JOIN orders o ON o.user_id =
// u.id ORDER BY u.id, o.id DESC"; each user's latest are kept in Go (as raw).
func (s *Store) listOrdersJoin(after uint32, limit int) sq.SelectBuilder {
	page := s.sql.Select("id", "name").
		From("users").
		Where(sq.Gt{"id": after}).
		OrderBy("id").
		Limit(uint64(limit))
	return s.sql.Select("u.id", "u.name", "o.id", "o.total").
		FromSelect(page, "u").
		LeftJoin("orders o ON o.user_id = u.id").
		OrderBy("u.id", "o.id DESC")
}

// ordersIn is eager's second statement for a page: "SELECT user_id, id, total FROM
// orders WHERE user_id IN (?,?,…) ORDER BY user_id, id DESC", squirrel.Eq with a slice
// writing the IN list.
func (s *Store) ordersIn(users []uint32) sq.SelectBuilder {
	return s.sql.Select("user_id", "id", "total").
		From("orders").
		Where(sq.Eq{"user_id": users}).
		OrderBy("user_id", "id DESC")
}

// UserOrders implements server.Related.
//
// Its forms and scan loops are raw/orders.go's on purpose, the statements squirrel's:
// every layer is self-contained (layers.go).
func (s *Store) UserOrders(ctx context.Context, id uint32, limit int, fetch string) (server.UserOrders, error) {
	if fetch == server.FetchJoin {
		us, err := s.joined(ctx, s.ordersJoin(id, limit))
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
		us, err := s.joined(ctx, s.listOrdersJoin(after, limit))
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
	rows, err := s.latestOrders(user, limit).RunWith(s.runner()).QueryContext(ctx)
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
// latest per.
func (s *Store) eager(ctx context.Context, out []server.UserOrders, per int) error {
	ids := make([]uint32, len(out))
	at := make(map[uint32]int, len(out))
	for i, u := range out {
		ids[i], at[u.ID] = u.ID, i
	}
	rows, err := s.ordersIn(ids).RunWith(s.runner()).QueryContext(ctx)
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

// joined runs a join and reads its rows, users in order, each user's orders after it
// (NULL columns: a user without orders).
func (s *Store) joined(ctx context.Context, q sq.SelectBuilder) ([]server.UserOrders, error) {
	rows, err := q.RunWith(s.runner()).QueryContext(ctx)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []server.UserOrders
	for rows.Next() {
		var u server.User
		var id, total sql.NullInt64
		if err := rows.Scan(&u.ID, &u.Name, &id, &total); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].ID != u.ID {
			out = append(out, server.UserOrders{ID: u.ID, Name: u.Name})
		}
		if id.Valid {
			last := &out[len(out)-1]
			last.Orders = append(last.Orders, server.Order{ID: uint32(id.Int64), Total: uint32(total.Int64)})
		}
	}
	return out, rows.Err()
}
