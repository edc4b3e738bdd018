package raw

import (
	"context"
	"database/sql"
	"strings"
	"sync"

	"dbbench/go/server"
)

// The statements of the orders ops, in each form (server.FetchJoin, FetchEager,
// FetchLazy) as a person writes them by hand.
const (
	// OrdersJoinQuery is one user's latest orders in one statement. LEFT JOIN: a user
	// without orders is still one row, its order columns NULL.
	OrdersJoinQuery = "SELECT u.id, u.name, o.id, o.total FROM users u LEFT JOIN orders o ON o.user_id = u.id WHERE u.id = ? ORDER BY o.id DESC LIMIT ?"
	// OrdersQuery is one user's latest orders: the second statement of eager for one
	// user, and lazy's statement per user.
	OrdersQuery = "SELECT id, total FROM orders WHERE user_id = ? ORDER BY id DESC LIMIT ?"
	// ListOrdersJoinQuery is a page of users with all their orders in one statement;
	// each user's latest are kept in Go (a LIMIT per user would need a window function
	// over the whole table, or LATERAL, which MariaDB lacks).
	ListOrdersJoinQuery = "SELECT u.id, u.name, o.id, o.total FROM (SELECT id, name FROM users WHERE id > ? ORDER BY id LIMIT ?) u " +
		"LEFT JOIN orders o ON o.user_id = u.id ORDER BY u.id, o.id DESC"
	// ordersInQuery is eager's second statement for a page: every order of its users,
	// "?" standing for the page's placeholders.
	ordersInQuery = "SELECT user_id, id, total FROM orders WHERE user_id IN (?) ORDER BY user_id, id DESC"
)

// Fetches are the forms the layer offers: for one user, eager and lazy are the same
// two statements by hand, so it offers join and eager.
var Fetches = server.Fetches{
	One:  []string{server.FetchJoin, server.FetchEager},
	List: []string{server.FetchJoin, server.FetchEager, server.FetchLazy},
}

// ordersStmts are the orders statements prepared once (stmt=prepared), by text: an
// IN list's text depends on the page's length.
type ordersStmts struct {
	mu     sync.Mutex
	byText map[string]*sql.Stmt
}

// query runs q on its statement prepared once when the layer prepares (stmt=prepared,
// which New marks by making getStmts), else on the pool.
func (s *Store) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if s.getStmts == nil {
		return s.db.QueryContext(ctx, q, args...)
	}
	s.orders.mu.Lock()
	stmt := s.orders.byText[q]
	if stmt == nil {
		var err error
		if stmt, err = s.db.PrepareContext(ctx, q); err != nil {
			s.orders.mu.Unlock()
			return nil, err
		}
		if s.orders.byText == nil {
			s.orders.byText = map[string]*sql.Stmt{}
		}
		s.orders.byText[q] = stmt
	}
	s.orders.mu.Unlock()
	return stmt.QueryContext(ctx, args...)
}

// UserOrders implements server.Related.
func (s *Store) UserOrders(ctx context.Context, id uint32, limit int, fetch string) (server.UserOrders, error) {
	if fetch == server.FetchJoin {
		us, err := s.joined(ctx, OrdersJoinQuery, id, limit)
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
		us, err := s.joined(ctx, ListOrdersJoinQuery, after, limit)
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
	rows, err := s.query(ctx, OrdersQuery, user, limit)
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
	args := make([]any, len(out))
	at := make(map[uint32]int, len(out))
	for i, u := range out {
		args[i], at[u.ID] = u.ID, i
	}
	q := strings.Replace(ordersInQuery, "?", strings.TrimSuffix(strings.Repeat("?,", len(out)), ","), 1)
	rows, err := s.query(ctx, q, args...)
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
// columns: a user without orders).
func (s *Store) joined(ctx context.Context, q string, args ...any) ([]server.UserOrders, error) {
	rows, err := s.query(ctx, q, args...)
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
