package server

import (
	"context"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// relatedFinder is fakeFinder reading related rows: user id's orders are id*10 down.
type relatedFinder struct{ fakeFinder }

func (f *relatedFinder) UserOrders(ctx context.Context, id uint32, limit int, fetch string) (UserOrders, error) {
	u, err := f.Find(ctx, id)
	if err != nil {
		return UserOrders{}, err
	}
	out := UserOrders{ID: u.ID, Name: u.Name}
	for k := range uint32(limit) {
		out.Orders = append(out.Orders, Order{ID: id*10 - k, Total: 1})
	}
	return out, nil
}

func (f *relatedFinder) ListOrders(ctx context.Context, after uint32, limit, per int, fetch string) ([]UserOrders, error) {
	var out []UserOrders
	for id := after + 1; id <= 10 && len(out) < limit; id++ {
		u, _ := f.UserOrders(ctx, id, per, fetch)
		out = append(out, u)
	}
	return out, nil
}

// The orders endpoints: the forms a layer offers and no other, the contract's 400s and
// 404, behind Limit too (conn=per-request), and refused outright by a layer that reads
// no related rows.
func TestOrdersEndpoints(t *testing.T) {
	fetches := Fetches{One: []string{FetchEager}, List: []string{FetchEager, FetchLazy}}
	for name, s := range map[string]Store{"plain": &relatedFinder{}, "limited": Limit(&relatedFinder{}, 2)} {
		h := New(s, Options{Fetches: fetches})
		for _, tc := range []struct{ path, want string }{
			{"/users/7/orders?limit=2&fetch=eager", `200 {"id":7,"name":"Ada Lovelace","orders":[{"id":70,"total":1},{"id":69,"total":1}]}`},
			{"/users?after=8&limit=5&orders=1&fetch=lazy", `200 [{"id":9,"name":"Ada Lovelace","orders":[{"id":90,"total":1}]},{"id":10,"name":"Ada Lovelace","orders":[{"id":100,"total":1}]}]`},
			{"/users?after=10&limit=5&orders=1&fetch=eager", `200 []`},
			{"/users/11/orders?limit=2&fetch=eager", `404 {"error":"user 11 not found"}`},
			{"/users/7/orders?limit=2&fetch=lazy", `400 {"error":"bad fetch: \"lazy\" is not a form this layer offers (eager)"}`},
			{"/users/7/orders?limit=2", `400 {"error":"bad fetch: fetch is required (join, eager or lazy)"}`},
			{"/users/7/orders?fetch=eager", `400 {"error":"bad limit: limit is required (1..100)"}`},
			{"/users/7/orders?limit=101&fetch=eager", `400 {"error":"bad limit: limit must be at most 100"}`},
			{"/users/7/orders?limit=2&limit=3&fetch=eager", `400 {"error":"bad limit: limit is given more than once"}`},
			{"/users/x/orders?limit=2&fetch=eager", `400 {"error":"bad id: `},
			{"/users?after=0&limit=2&orders=0&fetch=eager", `400 {"error":"bad orders: orders must be at least 1"}`},
			{"/users?after=0&limit=2&orders=1&fetch=join", `400 {"error":"bad fetch: \"join\" is not a form this layer offers (eager, lazy)"}`},
		} {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", tc.path, nil))
			body, _ := io.ReadAll(w.Body)
			if got := strconv.Itoa(w.Code) + " " + string(body); !strings.HasPrefix(got, tc.want) {
				t.Errorf("%s: GET %s = %s, want %s", name, tc.path, got, tc.want)
			}
		}
	}
	w := httptest.NewRecorder()
	New(&fakeFinder{}, Options{Fetches: fetches}).ServeHTTP(w, httptest.NewRequest("GET", "/users/7/orders?limit=2&fetch=eager", nil))
	if w.Code != 400 || !strings.Contains(w.Body.String(), "this layer reads no related rows") {
		t.Errorf("a layer without related rows: %d %s", w.Code, w.Body)
	}
}
