// Package server is the HTTP side every Go target shares: routing, id parsing, the JSON
// bodies and the mapping of results to status codes. The layers only implement Store,
// so they differ in how they talk to the database and in nothing else.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// User is the row and the 200 body of GET /users/{id}: {"id":42,"name":"…"}; a list is
// a JSON array of them.
type User struct {
	ID   uint32 `json:"id"`
	Name string `json:"name"`
}

// Visits is the body of POST /users/{id}/visits: the user's counter after the increment.
type Visits struct {
	ID     uint32 `json:"id"`
	Visits uint32 `json:"visits"`
}

// ErrNotFound is what a Finder (or a Store's Visit) returns when no row has the id.
var ErrNotFound = errors.New("user not found")

// Finder reads one user by primary key (op get). Any error but ErrNotFound is a
// database failure.
type Finder interface {
	Find(ctx context.Context, id uint32) (User, error)
}

// Store is a layer: one method per op, each written the way its library is meant to be
// used. Any error but ErrNotFound is a database failure (503).
type Store interface {
	Finder
	// List returns the limit users with id > after, in id order (op list); none is an
	// empty slice. limit is 1..MaxLimit.
	List(ctx context.Context, after uint32, limit int) ([]User, error)
	// Insert adds a user with this name and returns it with the id the database gave it
	// (op insert). name is 1..MaxNameChars characters of valid UTF-8.
	Insert(ctx context.Context, name string) (User, error)
	// Visit adds 1 to the user's visits in one transaction: a locking read of the row,
	// the increment in Go, a write, a commit (op update). Concurrent visits of one user
	// must all count: none may be lost. ErrNotFound when no row has the id.
	Visit(ctx context.Context, id uint32) (Visits, error)
}

// Content types of the bodies, as the endpoint contract states them.
const (
	TextPlain = "text/plain; charset=utf-8"
	JSON      = "application/json"
)

// HelloBody is the body of GET /hello.
const HelloBody = "Hello, World!"

// Options tune a Handler.
type Options struct {
	// Timeout bounds one request's work on the database, waiting for a pooled connection
	// (and for a row lock) included, so a database that hangs gives a 503 instead of a
	// request that never ends.
	Timeout time.Duration
	// Log receives database errors, at most one line a second (a dead database under
	// load would otherwise write one line per request). Nil discards them.
	Log *log.Logger
	// Fetches are the forms the layer reads related rows in (the orders ops): a layer
	// that offers none, or a store that is not Related, serves neither op.
	Fetches Fetches
}

// Methods each resource answers (the Allow header of its 405).
const (
	allowGet    = "GET, HEAD"
	allowUsers  = "GET, HEAD, POST"
	allowVisits = "POST"
)

// New returns the handler for GET /hello and, when s is not nil, the users endpoints:
// GET /users/{id} (get), GET /users?after=&limit= (list), POST /users (insert),
// POST /users/{id}/visits (update), GET /users/{id}/orders (orders) and GET
// /users?after=&limit=&orders= (listorders). A nil s is the hello layer: it has no database and
// no /users.
func New(s Store, o Options) http.Handler { return newHandler(s, o, time.Now) }

// newHandler is New with the clock the error log's throttle reads (time.Now but in tests).
func newHandler(s Store, o Options, now func() time.Time) http.Handler {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	h := &handler{store: s, timeout: o.Timeout, errs: &throttle{log: o.Log, now: now}}
	if related, ok := s.(Related); ok {
		h.related, h.fetches = related, o.Fetches
	}
	mux := http.NewServeMux()
	mux.Handle("/hello", only(allowGet, http.HandlerFunc(hello)))
	notFound := func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, http.StatusNotFound, "no such path: "+strconv.Quote(truncate(r.URL.Path, 64)))
	}
	if s != nil {
		mux.Handle("/users/{id}", only(allowGet, http.HandlerFunc(h.user)))
		mux.Handle("/users/{$}", only(allowGet, http.HandlerFunc(h.user))) // empty id: 400, not 404
		mux.Handle("/users/{id}/visits", only(allowVisits, http.HandlerFunc(h.visit)))
		mux.Handle("/users/{id}/orders", only(allowGet, http.HandlerFunc(h.userOrders)))
		mux.Handle("/users", only(allowUsers, http.HandlerFunc(h.users)))
	} else {
		mux.HandleFunc("/users", notFound) // or the mux would redirect it to /users/
	}
	mux.HandleFunc("/", notFound)
	return canonicalOnly(mux, notFound)
}

// canonicalOnly answers 404 for a path with empty, "." or ".." segments ("//users/1",
// "/users/../hello"), which ServeMux would redirect (307) to its cleaned form: the
// contract is 400, 404 or 405 for anything that is not a resource, never a redirect.
func canonicalOnly(mux http.Handler, notFound http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.EscapedPath() // as ServeMux matches: /users/%2F is one segment, a bad id
		clean := path.Clean(p)
		if len(p) > 1 && p[len(p)-1] == '/' && clean != "/" {
			clean += "/" // ServeMux keeps a trailing slash when it cleans
		}
		if r.Method != http.MethodConnect && clean != p {
			notFound(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

type handler struct {
	store   Store
	related Related // nil: the layer reads no related rows (h.fetches is empty)
	fetches Fetches
	timeout time.Duration
	errs    *throttle
}

func hello(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", TextPlain)
	w.Header().Set("Content-Length", strconv.Itoa(len(HelloBody)))
	w.Write([]byte(HelloBody))
}

// user is GET /users/{id} (op get).
func (h *handler) user(w http.ResponseWriter, r *http.Request) {
	id, err := ParseID(r.PathValue("id"))
	if err != nil {
		WriteError(w, http.StatusBadRequest, "bad id: "+err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	u, err := h.store.Find(ctx, id)
	cancel()
	switch {
	case err == nil:
		WriteJSON(w, http.StatusOK, u)
	case errors.Is(err, ErrNotFound):
		WriteError(w, http.StatusNotFound, fmt.Sprintf("user %d not found", id))
	default:
		h.failed(w, r, err)
	}
}

// users is /users: GET lists (op list), POST inserts (op insert).
func (h *handler) users(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		h.insert(w, r)
		return
	}
	after, limit, err := ParseListQuery(r.URL.RawQuery)
	if err != nil {
		WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	if wantsOrders(r.URL.RawQuery) {
		h.listOrders(w, r, after, limit)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	users, err := h.store.List(ctx, after, limit)
	cancel()
	if err != nil {
		h.failed(w, r, err)
		return
	}
	if users == nil {
		users = []User{} // [], not null
	}
	WriteJSON(w, http.StatusOK, users)
}

// insert is POST /users: 201 with the new user and its Location.
func (h *handler) insert(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			WriteError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", MaxBody))
			return
		}
		WriteError(w, http.StatusBadRequest, "bad body: cannot read it")
		return
	}
	name, err := ParseNewUser(body)
	if err != nil {
		WriteError(w, http.StatusBadRequest, "bad body: "+err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	u, err := h.store.Insert(ctx, name)
	cancel()
	if err != nil {
		h.failed(w, r, err)
		return
	}
	w.Header().Set("Location", "/users/"+strconv.FormatUint(uint64(u.ID), 10))
	WriteJSON(w, http.StatusCreated, u)
}

// visit is POST /users/{id}/visits (op update). A request body, if any, is ignored.
// It is user's twin on purpose: each handler reads whole, with no shared indirection
// (a func value per request) on the measured path.
func (h *handler) visit(w http.ResponseWriter, r *http.Request) {
	id, err := ParseID(r.PathValue("id"))
	if err != nil {
		WriteError(w, http.StatusBadRequest, "bad id: "+err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	v, err := h.store.Visit(ctx, id)
	cancel()
	switch {
	case err == nil:
		WriteJSON(w, http.StatusOK, v)
	case errors.Is(err, ErrNotFound):
		WriteError(w, http.StatusNotFound, fmt.Sprintf("user %d not found", id))
	default:
		h.failed(w, r, err)
	}
}

// failed answers a database failure: 503, and the driver's words to the log only.
func (h *handler) failed(w http.ResponseWriter, r *http.Request, err error) {
	h.errs.printf("%s %s: database error: %v", r.Method, truncate(r.URL.Path, 64), err)
	WriteError(w, http.StatusServiceUnavailable, "database unavailable")
}

// only answers 405 to every method allow does not list (HEAD goes with GET).
func only(allow string, next http.Handler) http.Handler {
	methods := map[string]bool{}
	for _, m := range strings.Split(allow, ", ") {
		methods[m] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !methods[r.Method] {
			w.Header().Set("Allow", allow)
			WriteError(w, http.StatusMethodNotAllowed, "method "+strconv.Quote(truncate(r.Method, 32))+" not allowed (only "+onlyWords(allow)+")")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// onlyWords is the 405 message's list: "GET" for GET and HEAD, as before the write
// endpoints existed, "GET or POST" for /users, "POST" for visits.
func onlyWords(allow string) string {
	switch allow {
	case allowGet:
		return "GET"
	case allowUsers:
		return "GET or POST"
	}
	return allow
}

// WriteJSON writes v as the whole body with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil { // only for values that cannot be marshalled: a programming error
		status, b = http.StatusInternalServerError, []byte(`{"error":"cannot encode response"}`)
	}
	w.Header().Set("Content-Type", JSON)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// WriteError writes {"error": msg} with status.
func WriteError(w http.ResponseWriter, status int, msg string) {
	WriteJSON(w, status, struct {
		Error string `json:"error"`
	}{msg})
}

// truncate keeps echoed client input short (a 10 kB path is not worth sending back).
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// throttle prints at most one line a second and counts the ones it held back.
type throttle struct {
	log        *log.Logger
	now        func() time.Time // time.Now; a test's clock
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

func (t *throttle) printf(format string, args ...any) {
	if t.log == nil {
		return
	}
	t.mu.Lock()
	now := t.now()
	if now.Sub(t.last) < time.Second {
		t.suppressed++
		t.mu.Unlock()
		return
	}
	n := t.suppressed
	t.last, t.suppressed = now, 0
	t.mu.Unlock()
	if n > 0 {
		format += fmt.Sprintf(" (%d similar errors not shown)", n)
	}
	t.log.Printf(format, args...)
}

// getOnly answers 405 to every method but GET and HEAD.
func getOnly(next http.Handler) http.Handler { return only(allowGet, next) }
