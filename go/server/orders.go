package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Order is one of a user's orders in a body: {"id":…,"total":…}, total in cents.
type Order struct {
	ID    uint32 `json:"id"`
	Total uint32 `json:"total"`
}

// UserOrders is a user with their latest orders, highest id first: the 200 body of GET
// /users/{id}/orders, and each element of GET /users?…&orders=.
type UserOrders struct {
	ID     uint32  `json:"id"`
	Name   string  `json:"name"`
	Orders []Order `json:"orders"`
}

// The forms a layer may read related rows in (the fetch parameter): Join, one statement
// joining users and orders; Eager, the users and then all their orders in one more
// statement (an ORM's eager loading, WHERE user_id IN (…)); Lazy, the users and then a
// statement per user (an ORM's lazy loading: 1 + N).
const (
	FetchJoin  = "join"
	FetchEager = "eager"
	FetchLazy  = "lazy"
)

// MaxOrders is the most orders per user a request may ask for.
const MaxOrders = 100

// Fetches are the forms a layer offers, for one user's orders (One) and for a list of
// users with theirs (List): what its library does, declared in go/layers/layers.go.
type Fetches struct {
	One, List []string
}

// Related is a layer that reads users' orders (the orders and listorders ops), in the
// forms its Fetches name.
type Related interface {
	// UserOrders is user id with their latest limit orders; ErrNotFound when no user
	// has the id.
	UserOrders(ctx context.Context, id uint32, limit int, fetch string) (UserOrders, error)
	// ListOrders are the limit users with id > after, in id order, each with their
	// latest per orders.
	ListOrders(ctx context.Context, after uint32, limit, per int, fetch string) ([]UserOrders, error)
}

// TrimLatest keeps each user's first per orders, for a form that fetched them all in
// order (a join or an eager load without a limit per user).
func TrimLatest(us []UserOrders, per int) {
	for i := range us {
		if len(us[i].Orders) > per {
			us[i].Orders = us[i].Orders[:per]
		}
	}
}

// relatedQuery is what GET /users/{id}/orders and GET /users?…&orders= read beyond the
// id or the list's after and limit.
type relatedQuery struct {
	limit, per int
	fetch      string
}

// parseRelated reads limit (GET /users/{id}/orders: the orders, 1..MaxOrders), orders
// (a list: the orders per user, 1..MaxOrders) and fetch from a query string, in
// ParseListQuery's manner: canonical numbers, a parameter twice refused, others ignored.
// want names the count parameter: "limit" or "orders".
func parseRelated(raw, want string) (relatedQuery, error) {
	var q relatedQuery
	seen := map[string]bool{}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		name, value, _ := strings.Cut(pair, "=")
		name, err1 := url.QueryUnescape(name)
		value, err2 := url.QueryUnescape(value)
		if err1 != nil || err2 != nil {
			return q, errBadQuery
		}
		if name != want && name != "fetch" {
			continue
		}
		if seen[name] {
			return q, fmt.Errorf("bad %s: %s is given more than once", name, name)
		}
		seen[name] = true
		if name == "fetch" {
			q.fetch = value
			continue
		}
		n, err := canonical(value, MaxOrders, fmt.Errorf("must be at most %d", MaxOrders))
		if err == nil && n == 0 {
			err = errZero
		}
		if err != nil {
			return q, fmt.Errorf("bad %s: %s %v", name, name, err)
		}
		q.per = int(n)
	}
	switch {
	case !seen[want]:
		return q, fmt.Errorf("bad %s: %s is required (1..%d)", want, want, MaxOrders)
	case !seen["fetch"]:
		return q, fmt.Errorf("bad fetch: fetch is required (%s, %s or %s)", FetchJoin, FetchEager, FetchLazy)
	}
	q.limit = q.per
	return q, nil
}

// offered refuses a form the layer does not offer, naming those it does.
func offered(fetch string, forms []string) error {
	if slices.Contains(forms, fetch) {
		return nil
	}
	if len(forms) == 0 {
		return errors.New("bad fetch: this layer reads no related rows")
	}
	return fmt.Errorf("bad fetch: %q is not a form this layer offers (%s)", fetch, strings.Join(forms, ", "))
}

// userOrders is GET /users/{id}/orders?limit=&fetch= (op orders).
func (h *handler) userOrders(w http.ResponseWriter, r *http.Request) {
	id, err := ParseID(r.PathValue("id"))
	if err != nil {
		WriteError(w, http.StatusBadRequest, "bad id: "+err.Error())
		return
	}
	q, err := parseRelated(r.URL.RawQuery, "limit")
	if err == nil {
		err = offered(q.fetch, h.fetches.One)
	}
	if err != nil {
		WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	u, err := h.related.UserOrders(ctx, id, q.limit, q.fetch)
	cancel()
	switch {
	case err == nil:
		if u.Orders == nil {
			u.Orders = []Order{} // [], not null
		}
		WriteJSON(w, http.StatusOK, u)
	case errors.Is(err, ErrNotFound):
		WriteError(w, http.StatusNotFound, fmt.Sprintf("user %d not found", id))
	default:
		h.failed(w, r, err)
	}
}

// listOrders is GET /users?after=&limit=&orders=&fetch= (op listorders).
func (h *handler) listOrders(w http.ResponseWriter, r *http.Request, after uint32, limit int) {
	q, err := parseRelated(r.URL.RawQuery, "orders")
	if err == nil {
		err = offered(q.fetch, h.fetches.List)
	}
	if err != nil {
		WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	users, err := h.related.ListOrders(ctx, after, limit, q.per, q.fetch)
	cancel()
	if err != nil {
		h.failed(w, r, err)
		return
	}
	if users == nil {
		users = []UserOrders{}
	}
	for i := range users {
		if users[i].Orders == nil {
			users[i].Orders = []Order{}
		}
	}
	WriteJSON(w, http.StatusOK, users)
}

// wantsOrders says whether a list's query string asks for each user's orders.
func wantsOrders(raw string) bool {
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if name, _, _ := strings.Cut(pair, "="); name == "orders" {
			return true
		}
	}
	return false
}
