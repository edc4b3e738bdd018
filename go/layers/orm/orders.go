package orm

import (
	"context"
	"errors"

	beego "github.com/beego/beego/v2/client/orm"
	"github.com/beego/beego/v2/client/orm/hints"

	"dbbench/go/server"
)

// Fetches are the forms the layer offers: lazy only, LoadRelated(&user, "Orders", …)
// on each user, Beego's way to load a reverse many relation (a query per user: 1 + N
// for a page, Read and one query for one user). No eager: Beego has no form that loads
// a reverse many relation for many models at once (RelatedSel joins only rel(fk) and
// rel(one) fields). No join: from the orders' side RelatedSel's INNER JOIN would lose a
// user without orders.
var Fetches = server.Fetches{
	One:  []string{server.FetchLazy},
	List: []string{server.FetchLazy},
}

// order maps the orders row; User is its rel(fk) in user_id, whose reverse is
// user.Orders. Read without RelatedSel, User holds only the id.
type order struct {
	ID    uint32 `orm:"column(id);pk"`
	User  *user  `orm:"column(user_id);rel(fk)"`
	Total uint32 `orm:"column(total)"`
}

func (*order) TableName() string { return "orders" }

// UserOrders implements server.Related: Read, then LoadRelated ordered by -id and
// limited (the limit written into the text, as every beego limit).
//
// The not-found mapping is Find's.
func (s *Store) UserOrders(ctx context.Context, id uint32, limit int, _ string) (u server.UserOrders, err error) {
	defer recovered(&err)
	m := user{ID: id}
	if err := s.o.ReadWithCtx(ctx, &m); err != nil {
		if errors.Is(err, beego.ErrNoRows) {
			return server.UserOrders{}, server.ErrNotFound
		}
		return server.UserOrders{}, err
	}
	if err := s.loadOrders(ctx, &m, limit); err != nil {
		return server.UserOrders{}, err
	}
	return server.UserOrders{ID: m.ID, Name: m.Name, Orders: orders(m.Orders)}, nil
}

// ListOrders implements server.Related: List's query set, then LoadRelated on each
// user.
func (s *Store) ListOrders(ctx context.Context, after uint32, limit, per int, _ string) (out []server.UserOrders, err error) {
	defer recovered(&err)
	var ms []*user
	_, err = s.o.QueryTable(new(user)).
		Filter("id__gt", after).
		OrderBy("id").
		Limit(limit).
		AllWithCtx(ctx, &ms)
	if err != nil && !errors.Is(err, beego.ErrNoRows) {
		return nil, err
	}
	out = make([]server.UserOrders, len(ms))
	for i, m := range ms {
		if err := s.loadOrders(ctx, m, per); err != nil {
			return nil, err
		}
		out[i] = server.UserOrders{ID: m.ID, Name: m.Name, Orders: orders(m.Orders)}
	}
	return out, nil
}

// loadOrders fills m.Orders with its latest limit orders (none: an empty slice, no
// error). LoadRelatedWithCtx drops its context (beego v2.3.8 runs the query under
// context.Background), so the request's timeout does not bound this query.
func (s *Store) loadOrders(ctx context.Context, m *user, limit int) error {
	_, err := s.o.LoadRelatedWithCtx(ctx, m, "Orders", hints.OrderBy("-id"), hints.Limit(int64(limit)))
	return err
}

// orders copies a user's loaded orders into the body's.
func orders(ms []*order) []server.Order {
	out := make([]server.Order, len(ms))
	for i, o := range ms {
		out[i] = server.Order{ID: o.ID, Total: o.Total}
	}
	return out
}
