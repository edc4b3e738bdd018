package run

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"

	"dbbench/fixtures"
	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/loadgen"
	"dbbench/runners/results"
)

// verifySample is how many bodies are compared with name(id) before a variant is
// measured (pages of a list; inserts and visits are fewer, each read back).
const verifySample = 50

// unknownID is an id no row has, whatever inserts added: the largest an id may be.
const unknownID = math.MaxUint32

// verify checks a target before it is measured, on its op: get, a sample of bodies
// equals the fixture function; list, every row of a sample of pages is the fixture row
// in id order; insert, 201 with the name sent, the row read back from the database;
// update, 200 with the counter one higher, and the table's too. Then a malformed
// request gets 400 and, for get and update, an id no row has 404. hello is checked for
// its fixed body instead when the layer uses no database. admin reads the table.
func verify(ctx context.Context, base string, spec matrix.Spec, rows, perUser int, seed uint64, admin *sql.DB, rebind func(string) string) *results.Verification {
	c := newRequester(base, spec.Op, rows, seed, 0x76657269667921) // "verify!": a stream of its own
	defer c.close()
	vf := verifier{ctx: ctx, c: c, rows: rows, perUser: perUser, admin: admin, rebind: rebind, v: &results.Verification{}}
	var err error
	switch {
	case !spec.Layer.DB:
		err = vf.hello()
	case c.op == loadgen.List:
		err = vf.list()
	case c.op == loadgen.Orders:
		err = vf.orders()
	case c.op == loadgen.ListOrders:
		err = vf.listOrders()
	case c.op == loadgen.Insert:
		err = vf.insert()
	case c.op == loadgen.Update:
		err = vf.update()
	default:
		err = vf.get()
	}
	if err != nil {
		vf.v.Error = err.Error()
	}
	return vf.v
}

// verifier holds one verification under way.
type verifier struct {
	ctx     context.Context
	c       *requester
	rows    int
	perUser int // each fixture user's orders (the orders ops)
	admin   *sql.DB
	// rebind writes the verifier's queries as the server takes them (provider.DB.Rebind).
	rebind func(string) string
	v      *results.Verification
}

func (vf *verifier) hello() error {
	status, body, err := vf.c.do(vf.ctx, "GET", "/hello", nil)
	if err != nil || status != 200 || string(body) != "Hello, World!" {
		return fmt.Errorf("GET /hello = %d %q, %v; want 200 \"Hello, World!\"", status, body, err)
	}
	vf.v.Bodies = 1
	return nil
}

// expect sends q and returns its body when the status is want.
func (vf *verifier) expect(q loadgen.Request, want int) ([]byte, error) {
	status, body, err := vf.c.send(vf.ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", q.Op, q, err)
	}
	if status != want {
		return nil, fmt.Errorf("%s %s = %d %s; want %d", q.Op, q, status, truncate(body), want)
	}
	return body, nil
}

// status sends a request by hand, for the 400s and 404s.
func (vf *verifier) status(method, path string, body []byte, want int, got *int) error {
	status, b, err := vf.c.do(vf.ctx, method, path, body)
	if got != nil {
		*got = status
	}
	if err != nil || status != want {
		return fmt.Errorf("%s %s = %d %s, %v; want %d", method, path, status, truncate(b), err, want)
	}
	return nil
}

// get checks the first and last fixture rows and random ones.
func (vf *verifier) get() error {
	ids := []uint32{1, uint32(vf.rows)}
	for len(ids) < verifySample {
		ids = append(ids, vf.c.draw().ID)
	}
	for _, id := range ids {
		body, err := vf.expect(loadgen.Request{Op: loadgen.Get, ID: id}, 200)
		if err != nil {
			return err
		}
		if err := CheckUser(id, body); err != nil {
			return fmt.Errorf("GET /users/%d: %v", id, err)
		}
		vf.v.Bodies++
	}
	if err := vf.status("GET", "/users/abc", nil, 400, &vf.v.BadID); err != nil {
		return err
	}
	return vf.status("GET", "/users/"+strconv.Itoa(unknownID), nil, 404, &vf.v.UnknownID)
}

// list checks the first and last full pages and random ones, every row of each.
func (vf *verifier) list() error {
	last := uint32(vf.rows - vf.c.limit)
	afters := []uint32{0, last}
	for len(afters) < verifySample/5 {
		afters = append(afters, vf.c.draw().ID)
	}
	for _, after := range afters {
		q := loadgen.Request{Op: loadgen.List, ID: after, Limit: vf.c.limit}
		body, err := vf.expect(q, 200)
		if err != nil {
			return err
		}
		if err := CheckList(after, q.Limit, body); err != nil {
			return fmt.Errorf("GET /users?after=%d&limit=%d: %v", after, q.Limit, err)
		}
		vf.v.Bodies += q.Limit
	}
	return vf.status("GET", "/users?after=1", nil, 400, &vf.v.BadID) // limit is required
}

// orders checks a user's orders as get checks the user, and that a bad id, limit or
// form gets 400 and an unknown id 404.
func (vf *verifier) orders() error {
	ids := []uint32{1, uint32(vf.rows)}
	for len(ids) < verifySample {
		ids = append(ids, vf.c.draw().ID)
	}
	for _, id := range ids {
		q := loadgen.Request{Op: loadgen.Orders, ID: id, Orders: vf.c.orders}
		body, err := vf.expect(q, 200)
		if err != nil {
			return err
		}
		if err := CheckOrders(id, q.Orders, vf.perUser, body); err != nil {
			return fmt.Errorf("GET /users/%d/orders: %v", id, err)
		}
		vf.v.Bodies++
	}
	tail := "?" + loadgen.RelatedQuery("limit", vf.c.orders, vf.c.fetch)[1:]
	for _, bad := range []string{"/users/abc/orders" + tail, "/users/1/orders?limit=0&fetch=" + vf.c.fetch, "/users/1/orders?limit=1&fetch=none"} {
		if err := vf.status("GET", bad, nil, 400, &vf.v.BadID); err != nil {
			return err
		}
	}
	return vf.status("GET", "/users/"+strconv.Itoa(unknownID)+"/orders"+tail, nil, 404, &vf.v.UnknownID)
}

// listOrders checks pages of users with their orders as list checks pages of users.
func (vf *verifier) listOrders() error {
	afters := []uint32{0, uint32(vf.rows - vf.c.limit)}
	for len(afters) < verifySample/5 {
		afters = append(afters, vf.c.draw().ID)
	}
	for _, after := range afters {
		q := loadgen.Request{Op: loadgen.ListOrders, ID: after, Limit: vf.c.limit, Orders: vf.c.orders}
		body, err := vf.expect(q, 200)
		if err != nil {
			return err
		}
		if err := CheckListOrders(after, q.Limit, q.Orders, vf.perUser, body); err != nil {
			return fmt.Errorf("GET /users?after=%d&limit=%d&orders=%d: %v", after, q.Limit, q.Orders, err)
		}
		vf.v.Bodies += q.Limit
	}
	return vf.status("GET", "/users?after=1&limit=2&orders=0&fetch="+vf.c.fetch, nil, 400, &vf.v.BadID)
}

// insertChecks is how many inserts and visits a verification reads back.
const insertChecks = 5

// insert posts names and reads each row back, name as sent and no visit yet.
func (vf *verifier) insert() error {
	for range insertChecks {
		q := vf.c.draw()
		name := fixtures.InsertedName(q.N)
		body, err := vf.expect(q, 201)
		if err != nil {
			return err
		}
		id, err := CheckInserted(name, vf.rows, body)
		if err != nil {
			return fmt.Errorf("POST /users: %v", err)
		}
		vf.v.Bodies++
		var got string
		var visits int64
		if err := vf.admin.QueryRowContext(vf.ctx, vf.rebind("SELECT name, visits FROM users WHERE id = ?"), id).Scan(&got, &visits); err != nil {
			return fmt.Errorf("POST /users answered id %d, which the table does not hold: %v", id, err)
		}
		if got != name || visits != 0 {
			return fmt.Errorf("POST /users of %q answered id %d; the table holds %q with %d visits", name, id, got, visits)
		}
		vf.v.ReadBack++
	}
	return vf.status("POST", "/users", []byte(`{"name":""}`), 400, &vf.v.BadID)
}

// update visits random users and reads each counter back, one higher than before.
func (vf *verifier) update() error {
	for range insertChecks {
		q := vf.c.draw()
		before, err := vf.visits(q.ID)
		if err != nil {
			return err
		}
		body, err := vf.expect(q, 200)
		if err != nil {
			return err
		}
		got, err := CheckVisit(q.ID, body)
		if err != nil {
			return fmt.Errorf("POST /users/%d/visits: %v", q.ID, err)
		}
		after, err := vf.visits(q.ID)
		if err != nil {
			return err
		}
		if int64(got) != before+1 || after != before+1 {
			return fmt.Errorf("POST /users/%d/visits: visits went %d -> %d in the table, the answer says %d; want %d", q.ID, before, after, got, before+1)
		}
		vf.v.Bodies++
		vf.v.ReadBack++
	}
	if err := vf.status("POST", "/users/abc/visits", nil, 400, &vf.v.BadID); err != nil {
		return err
	}
	return vf.status("POST", "/users/"+strconv.Itoa(unknownID)+"/visits", nil, 404, &vf.v.UnknownID)
}

func (vf *verifier) visits(id uint32) (int64, error) {
	var n int64
	if err := vf.admin.QueryRowContext(vf.ctx, vf.rebind("SELECT visits FROM users WHERE id = ?"), id).Scan(&n); err != nil {
		return 0, fmt.Errorf("read the visits of user %d: %v", id, err)
	}
	return n, nil
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return strconv.Quote(string(b[:200])) + "…"
	}
	return strconv.Quote(string(b))
}
