package run

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	"dbbench/fixtures"
	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/loadgen"
)

// opOf is the request the load generator sends for an op of the matrix (whose requests
// are named as loadgen's), and a list's rows.
func opOf(op *matrix.Op) (loadgen.Op, int) {
	if op == nil {
		return loadgen.Get, 0
	}
	return loadgen.Op(op.Request), op.Rows
}

// requester sends single requests of an op through net/http, one answer at a time:
// the verification's and the round-trip count's (the load generator sends the measured
// ones). It draws them as the generator does, from a stream of its own.
type requester struct {
	base   string
	op     loadgen.Op
	limit  int
	orders int    // the orders ops': orders per user
	fetch  string // the orders ops': the form
	rows   int
	rand   *rand.Rand
	n      uint64 // the next insert's counter
	client *http.Client
}

func newRequester(base string, op *matrix.Op, rows int, seed, stream uint64) *requester {
	o, limit := opOf(op)
	c := &requester{base: base, op: o, limit: limit, rows: rows, rand: rand.New(rand.NewPCG(seed, stream)),
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256}}}
	if op != nil {
		c.orders, c.fetch = op.Orders, op.Fetch
	}
	if o == loadgen.Insert {
		c.n = c.rand.Uint64() >> 1
	}
	return c
}

// draw is the next request: ids and afters uniform as the generator's, insert names
// from a counter.
func (c *requester) draw() loadgen.Request {
	q := loadgen.Request{Op: c.op, Limit: c.limit, Orders: c.orders}
	switch c.op {
	case loadgen.List, loadgen.ListOrders:
		q.ID = uint32(c.rand.IntN(c.rows - c.limit + 1))
	case loadgen.Insert:
		q.N, c.n = c.n, c.n+1
	default:
		q.ID = uint32(1 + c.rand.IntN(c.rows))
	}
	return q
}

// send sends q and returns the status and the body.
func (c *requester) send(ctx context.Context, q loadgen.Request) (int, []byte, error) {
	switch q.Op {
	case loadgen.List:
		return c.do(ctx, http.MethodGet, fmt.Sprintf("/users?after=%d&limit=%d", q.ID, q.Limit), nil)
	case loadgen.Insert:
		body, err := json.Marshal(map[string]string{"name": fixtures.InsertedName(q.N)})
		if err != nil {
			return 0, nil, err
		}
		return c.do(ctx, http.MethodPost, "/users", body)
	case loadgen.Update:
		return c.do(ctx, http.MethodPost, fmt.Sprintf("/users/%d/visits", q.ID), nil)
	case loadgen.Orders:
		return c.do(ctx, http.MethodGet, fmt.Sprintf("/users/%d/orders?%s", q.ID, loadgen.RelatedQuery("limit", q.Orders, c.fetch)[1:]), nil)
	case loadgen.ListOrders:
		return c.do(ctx, http.MethodGet, fmt.Sprintf("/users?after=%d&limit=%d%s", q.ID, q.Limit, loadgen.RelatedQuery("orders", q.Orders, c.fetch)), nil)
	}
	return c.do(ctx, http.MethodGet, fmt.Sprintf("/users/%d", q.ID), nil)
}

// ok sends q and says why its answer is not a 2xx, if it is not.
func (c *requester) ok(ctx context.Context, q loadgen.Request) error {
	status, body, err := c.send(ctx, q)
	if err == nil && status/100 != 2 {
		err = fmt.Errorf("%s %s = %d %s", q.Op, q, status, truncate(body))
	}
	return err
}

// do sends one request with body (nil: none; a POST without one says so).
func (c *requester) do(ctx context.Context, method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b, err
}

func (c *requester) close() { c.client.CloseIdleConnections() }
