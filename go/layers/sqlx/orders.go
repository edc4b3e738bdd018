package sqlx

import (
	"context"
	"database/sql"
	"sync"

	jsqlx "github.com/jmoiron/sqlx"

	"dbbench/go/server"
)

// The statements of the orders ops, in each form (server.FetchJoin, FetchEager,
// FetchLazy): raw/orders.go's texts, rebound to $n on PostgreSQL, except that the
// join names the order's id order_id, since sqlx maps columns to fields by name and
// the join has two columns called id.
const (
	// OrdersJoinQuery is one user's latest orders in one statement. LEFT JOIN: a user
	// without orders is still one row, its order columns NULL.
	OrdersJoinQuery = "SELECT u.id, u.name, o.id AS order_id, o.total FROM users u LEFT JOIN orders o ON o.user_id = u.id WHERE u.id = ? ORDER BY o.id DESC LIMIT ?"
	// OrdersQuery is one user's latest orders: the second statement of eager for one
	// user, and lazy's statement per user.
	OrdersQuery = "SELECT id, total FROM orders WHERE user_id = ? ORDER BY id DESC LIMIT ?"
	// ListOrdersJoinQuery is a page of users with all their orders in one statement;
	// each user's latest are kept in Go (no window function, as raw).
	ListOrdersJoinQuery = "SELECT u.id, u.name, o.id AS order_id, o.total FROM (SELECT id, name FROM users WHERE id > ? ORDER BY id LIMIT ?) u " +
		"LEFT JOIN orders o ON o.user_id = u.id ORDER BY u.id, o.id DESC"
	// OrdersInQuery is eager's second statement for a page: sqlx.In expands the "?" to
	// one placeholder per user of the page.
	OrdersInQuery = "SELECT user_id, id, total FROM orders WHERE user_id IN (?) ORDER BY user_id, id DESC"
)

// Fetches are the forms the layer offers: the SQL is by hand, as raw's, so are its
// forms (for one user, eager and lazy are the same two statements: join and eager).
var Fetches = server.Fetches{
	One:  []string{server.FetchJoin, server.FetchEager},
	List: []string{server.FetchJoin, server.FetchEager, server.FetchLazy},
}

// order is an order row as sqlx maps it; server.Order is the same struct but for its
// tags, so a conversion copies it.
type order struct {
	ID    uint32 `db:"id"`
	Total uint32 `db:"total"`
}

// userOrder is a row of eager's IN statement: the order and whose it is.
type userOrder struct {
	UserID uint32 `db:"user_id"`
	order
}

// joinRow is a row of a join: the user, and an order or NULLs.
type joinRow struct {
	user
	OrderID sql.NullInt64 `db:"order_id"`
	Total   sql.NullInt64 `db:"total"`
}

// ordersStmts are the orders statements' texts in the driver's placeholders (Rebind),
// and, when prepared, each text's *sqlx.Stmt, prepared on first use: an IN list's text
// depends on the page's length, so they are not all known at start.
type ordersStmts struct {
	join, latest, listJoin string
	mu                     sync.Mutex
	byText                 map[string]*jsqlx.Stmt // nil unless prepared
}

// newOrdersStmts rebinds the orders texts for db; prepared keeps statements by text.
func newOrdersStmts(db *jsqlx.DB, prepared bool) *ordersStmts {
	o := &ordersStmts{join: db.Rebind(OrdersJoinQuery), latest: db.Rebind(OrdersQuery), listJoin: db.Rebind(ListOrdersJoinQuery)}
	if prepared {
		o.byText = map[string]*jsqlx.Stmt{}
	}
	return o
}

// selectOrders is SelectContext of q on the pool, or on q's statement prepared once
// when prepared (mirroring raw/orders.go's query, with sqlx's statements).
func (s *Store) selectOrders(ctx context.Context, dest any, q string, args ...any) error {
	o := s.orders
	if o.byText == nil {
		return s.db.SelectContext(ctx, dest, q, args...)
	}
	o.mu.Lock()
	stmt := o.byText[q]
	if stmt == nil {
		var err error
		if stmt, err = s.db.PreparexContext(ctx, q); err != nil {
			o.mu.Unlock()
			return err
		}
		o.byText[q] = stmt
	}
	o.mu.Unlock()
	return stmt.SelectContext(ctx, dest, args...)
}

// UserOrders implements server.Related.
//
// Its forms are raw/orders.go's on purpose, with sqlx's SelectContext into structs in
// place of the scan loops: every layer is self-contained (layers.go).
func (s *Store) UserOrders(ctx context.Context, id uint32, limit int, fetch string) (server.UserOrders, error) {
	if fetch == server.FetchJoin {
		us, err := s.joined(ctx, s.orders.join, id, limit)
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
		us, err := s.joined(ctx, s.orders.listJoin, after, limit)
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

// latest reads one user's latest limit orders into structs.
func (s *Store) latest(ctx context.Context, user uint32, limit int) ([]server.Order, error) {
	rows := make([]order, 0, limit)
	if err := s.selectOrders(ctx, &rows, s.orders.latest, user, limit); err != nil {
		return nil, err
	}
	orders := make([]server.Order, len(rows))
	for i, o := range rows {
		orders[i] = server.Order(o)
	}
	return orders, nil
}

// eager reads the orders of every user of out in one statement (sqlx.In expands the
// IN list from a slice of ids) and keeps each one's latest per.
func (s *Store) eager(ctx context.Context, out []server.UserOrders, per int) error {
	ids := make([]uint32, len(out))
	at := make(map[uint32]int, len(out))
	for i, u := range out {
		ids[i], at[u.ID] = u.ID, i
	}
	q, args, err := jsqlx.In(OrdersInQuery, ids)
	if err != nil {
		return err
	}
	var rows []userOrder
	if err := s.selectOrders(ctx, &rows, s.db.Rebind(q), args...); err != nil {
		return err
	}
	for _, r := range rows {
		if i, ok := at[r.UserID]; ok && len(out[i].Orders) < per {
			out[i].Orders = append(out[i].Orders, server.Order(r.order))
		}
	}
	return nil
}

// joined reads a join's rows into structs and groups them: users in order, each
// user's orders after it (NULL columns: a user without orders).
func (s *Store) joined(ctx context.Context, q string, args ...any) ([]server.UserOrders, error) {
	var rows []joinRow
	if err := s.selectOrders(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	var out []server.UserOrders
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].ID != r.ID {
			out = append(out, server.UserOrders{ID: r.ID, Name: r.Name})
		}
		if r.OrderID.Valid {
			last := &out[len(out)-1]
			last.Orders = append(last.Orders, server.Order{ID: uint32(r.OrderID.Int64), Total: uint32(r.Total.Int64)})
		}
	}
	return out, nil
}
