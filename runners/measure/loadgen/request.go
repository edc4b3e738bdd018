package loadgen

import (
	"fmt"
	"strconv"

	"dbbench/fixtures"
)

// Op is what a generator's requests ask for: the requests of runners/matrix.yaml's ops.
type Op string

const (
	// Get sends GET Path, "{id}" in it replaced by an id uniform in 1..Rows.
	Get Op = "get"
	// List sends GET /users?after=A&limit=Limit, A uniform in 0..Rows−Limit: every row
	// it lists is a fixture row, whatever inserts add above Rows.
	List Op = "list"
	// Insert sends POST /users with {"name": fixtures.InsertedName(n)}, n a counter of
	// the connection's own that starts at a value drawn from the seed.
	Insert Op = "insert"
	// Update sends POST /users/{id}/visits without a body, id uniform in 1..Rows.
	Update Op = "update"
	// Orders sends GET /users/{id}/orders?limit=Orders&fetch=Fetch, id uniform in
	// 1..Rows: a user with their latest orders.
	Orders Op = "orders"
	// ListOrders sends GET /users?after=A&limit=Limit&orders=Orders&fetch=Fetch, A as
	// List's: a page of users, each with their latest orders.
	ListOrders Op = "listorders"
)

// Request is what one request asked for, as Config.Check needs it to judge the answer.
type Request struct {
	Op    Op
	ID    uint32 // get, update and orders: the user's id (0 for a path without {id}); lists: after
	Limit int    // lists: the users asked for
	// Orders is orders' and listorders': the orders per user asked for.
	Orders int
	N      uint64 // insert: the counter its name is made from (fixtures.InsertedName)
}

// String names the request in an error: "id 42", "after 42 limit 100", "name +7".
func (q Request) String() string {
	switch q.Op {
	case List:
		return fmt.Sprintf("after %d limit %d", q.ID, q.Limit)
	case ListOrders:
		return fmt.Sprintf("after %d limit %d orders %d", q.ID, q.Limit, q.Orders)
	case Insert:
		return "name +" + strconv.FormatUint(q.N, 10)
	}
	return fmt.Sprintf("id %d", q.ID)
}

// shape sets the path, method and body of an op's requests on p.
func (p *plan) shape() error {
	if p.Op != "" && p.Op != Get && p.Path != "" {
		return fmt.Errorf("loadgen: op %s sets its own path, not %q", p.Op, p.Path)
	}
	switch p.Op {
	case "", Get:
		p.Op = Get
		if p.Path == "" {
			p.Path = DefaultPath
		}
		return nil
	case List, ListOrders:
		if p.Limit < 1 || uint32(p.Limit) > p.Rows {
			return fmt.Errorf("loadgen: a list of %d rows from a table of %d: want 1 to Rows", p.Limit, p.Rows)
		}
		p.Path = "/users?after={id}&limit=" + strconv.Itoa(p.Limit)
		if p.Op == ListOrders {
			p.Path += RelatedQuery("orders", p.Orders, p.Fetch)
		}
	case Orders:
		p.Path = "/users/{id}/orders?" + RelatedQuery("limit", p.Orders, p.Fetch)[1:]
	case Insert:
		p.Path, p.method = "/users", "POST"
	case Update:
		p.Path, p.method = "/users/{id}/visits", "POST"
	default:
		return fmt.Errorf("loadgen: unknown op %q (want get, list, insert, update, orders or listorders)", p.Op)
	}
	if (p.Op == Orders || p.Op == ListOrders) && (p.Orders < 1 || p.Fetch == "") {
		return fmt.Errorf("loadgen: op %s needs Orders (at least 1) and Fetch, got %d and %q", p.Op, p.Orders, p.Fetch)
	}
	return nil
}

// RelatedQuery is the query string's tail of the orders ops: "&orders=3&fetch=join",
// the count named as the endpoint names it (limit for one user's, orders for a list's).
func RelatedQuery(count string, n int, fetch string) string {
	return "&" + count + "=" + strconv.Itoa(n) + "&fetch=" + fetch
}

// next draws the worker's next request.
func (w *worker) next() Request {
	r := w.r
	q := Request{Op: r.Op, Limit: r.Limit, Orders: r.Orders}
	switch {
	case r.Op == Insert:
		q.N = w.inserts
		w.inserts++
	case r.Op == List || r.Op == ListOrders:
		q.ID = w.ids.Uint32N(r.Rows - uint32(r.Limit) + 1)
	case r.hasID:
		q.ID = w.ids.Uint32N(r.Rows) + 1
	}
	return q
}

// appendEnd ends a request's head, and adds its body: a POST says its length (0 for an
// update), an insert's body is {"name":"…"}, whose name needs no escaping.
func (c *client) appendEnd(q Request) {
	switch {
	case q.Op == Insert:
		c.out = append(c.out[:0], `{"name":"`...)
		c.out = fixtures.AppendInsertedName(c.out, q.N)
		c.out = append(c.out, `"}`...)
		c.req = append(c.req, "Content-Type: application/json\r\nContent-Length: "...)
		c.req = strconv.AppendInt(c.req, int64(len(c.out)), 10)
		c.req = append(c.req, "\r\n\r\n"...)
		c.req = append(c.req, c.out...)
	case c.post:
		c.req = append(c.req, "Content-Length: 0\r\n\r\n"...)
	default:
		c.req = append(c.req, "\r\n"...)
	}
}
