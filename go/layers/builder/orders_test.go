package builder

import (
	"slices"
	"testing"

	sq "github.com/Masterminds/squirrel"
)

// TestOrdersStatements checks the texts squirrel renders for the orders statements on
// both protocols: the contract's SQL (raw/orders.go), the limits in the text, one
// placeholder per id in the IN list, and the derived table's placeholders numbered
// with the outer query's on PostgreSQL.
func TestOrdersStatements(t *testing.T) {
	my := &Store{sql: sq.StatementBuilder}
	pg := &Store{sql: sq.StatementBuilder.PlaceholderFormat(sq.Dollar)}
	for _, c := range []struct {
		name     string
		b        sq.SelectBuilder
		want     string
		wantArgs []any
	}{
		{"join", my.ordersJoin(7, 10), "SELECT u.id, u.name, o.id, o.total FROM users u LEFT JOIN orders o ON o.user_id = u.id WHERE u.id = ? ORDER BY o.id DESC LIMIT 10", []any{uint32(7)}},
		{"join pg", pg.ordersJoin(7, 10), "SELECT u.id, u.name, o.id, o.total FROM users u LEFT JOIN orders o ON o.user_id = u.id WHERE u.id = $1 ORDER BY o.id DESC LIMIT 10", []any{uint32(7)}},
		{"latest", my.latestOrders(7, 3), "SELECT id, total FROM orders WHERE user_id = ? ORDER BY id DESC LIMIT 3", []any{uint32(7)}},
		{"list join pg", pg.listOrdersJoin(40, 20), "SELECT u.id, u.name, o.id, o.total FROM (SELECT id, name FROM users WHERE id > $1 ORDER BY id LIMIT 20) AS u LEFT JOIN orders o ON o.user_id = u.id ORDER BY u.id, o.id DESC", []any{uint32(40)}},
		{"in", my.ordersIn([]uint32{41, 42, 43}), "SELECT user_id, id, total FROM orders WHERE user_id IN (?,?,?) ORDER BY user_id, id DESC", []any{uint32(41), uint32(42), uint32(43)}},
		{"in pg", pg.ordersIn([]uint32{41, 42}), "SELECT user_id, id, total FROM orders WHERE user_id IN ($1,$2) ORDER BY user_id, id DESC", []any{uint32(41), uint32(42)}},
	} {
		got, args, err := c.b.ToSql()
		if err != nil || got != c.want || !slices.Equal(args, c.wantArgs) {
			t.Errorf("%s: %q %v (%v), want %q %v", c.name, got, args, err, c.want, c.wantArgs)
		}
	}
}
