package target

// The orders ops (issue 61) on every layer, checked inside TestGoOps and TestPHPOps on
// the shared MariaDB, whose fixtures carry fixtures.DefaultOrdersPerUser orders per
// user: every form a layer offers answers the exact body the fixture functions give,
// and a form it does not offer is a 400.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"dbbench/fixtures"
	"dbbench/runners/define/matrix"
)

// userOrders is the body of a user with their latest orders.
type userOrders struct {
	ID     uint32           `json:"id"`
	Name   string           `json:"name"`
	Orders []fixtures.Order `json:"orders"`
}

func withOrders(id uint32, limit int) userOrders {
	return userOrders{id, fixtures.Name(id), fixtures.LatestOrders(id, fixtures.DefaultOrdersPerUser, limit)}
}

// listOrdersBody is the exact 200 body of a page of users with their orders, on the
// fixture rows alone.
func listOrdersBody(after, limit, per int) string {
	out := []userOrders{}
	for id := after + 1; id <= testRows && len(out) < limit; id++ {
		out = append(out, withOrders(uint32(id), per))
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// checkRelated checks both orders endpoints in every form layer l offers, before any
// insert (a page's end is the fixtures' end).
func checkRelated(t *testing.T, base string, l *matrix.Layer) {
	t.Helper()
	for _, form := range l.Fetch["orders"] {
		for _, c := range [][2]int{{1, 10}, {7, 3}, {testRows, 10}} {
			path := fmt.Sprintf("/users/%d/orders?limit=%d&fetch=%s", c[0], c[1], form)
			b, _ := json.Marshal(withOrders(uint32(c[0]), c[1]))
			if r := get(t, base+path); r.status != http.StatusOK || !sameJSON(r.body, string(b)) {
				t.Errorf("GET %s = %d %.300s, want 200 %.300s", path, r.status, r.body, b)
			}
		}
		assertError(t, fmt.Sprintf("%s/users/%d/orders?limit=3&fetch=%s", base, testRows+500, form), http.StatusNotFound)
		assertError(t, base+"/users/7/orders?limit=0&fetch="+form, http.StatusBadRequest)
	}
	for _, form := range l.Fetch["listorders"] {
		for _, c := range [][3]int{{0, 20, 3}, {41, 5, 10}, {testRows - 5, 20, 3}} {
			path := fmt.Sprintf("/users?after=%d&limit=%d&orders=%d&fetch=%s", c[0], c[1], c[2], form)
			if r, want := get(t, base+path), listOrdersBody(c[0], c[1], c[2]); r.status != http.StatusOK || !sameJSON(r.body, want) {
				t.Errorf("GET %s = %d %.300s, want 200 %.300s", path, r.status, r.body, want)
			}
		}
	}
	for _, form := range matrix.Fetches {
		if !slices.Contains(l.Fetch["orders"], form) {
			assertError(t, base+"/users/7/orders?limit=3&fetch="+form, http.StatusBadRequest)
		}
		if !slices.Contains(l.Fetch["listorders"], form) {
			assertError(t, base+"/users?after=0&limit=2&orders=3&fetch="+form, http.StatusBadRequest)
		}
	}
}
