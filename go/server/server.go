// Package server is the HTTP side every Go target shares: routing, id parsing, the JSON
// bodies and the mapping of lookup results to status codes. The layers only implement
// Finder, so they differ in how they read the row and in nothing else.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"path"
	"strconv"
	"sync"
	"time"
)

// User is the row and the 200 body: {"id":42,"name":"…"}.
type User struct {
	ID   uint32 `json:"id"`
	Name string `json:"name"`
}

// ErrNotFound is what a Finder returns when no row has the id.
var ErrNotFound = errors.New("user not found")

// Finder reads one user by primary key. Any error but ErrNotFound is a database failure.
type Finder interface {
	Find(ctx context.Context, id uint32) (User, error)
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
	// Timeout bounds one lookup, waiting for a pooled connection included, so a database
	// that hangs gives a 503 instead of a request that never ends.
	Timeout time.Duration
	// Log receives database errors, at most one line a second (a dead database under
	// load would otherwise write one line per request). Nil discards them.
	Log *log.Logger
}

// New returns the handler for GET /hello and, when f is not nil, GET /users/{id}.
// A nil f is the hello layer: it has no database and no /users.
func New(f Finder, o Options) http.Handler { return newHandler(f, o, time.Now) }

// newHandler is New with the clock the error log's throttle reads (time.Now but in tests).
func newHandler(f Finder, o Options, now func() time.Time) http.Handler {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	h := &handler{finder: f, timeout: o.Timeout, errs: &throttle{log: o.Log, now: now}}
	mux := http.NewServeMux()
	mux.Handle("/hello", getOnly(http.HandlerFunc(hello)))
	if f != nil {
		mux.Handle("/users/{id}", getOnly(http.HandlerFunc(h.user)))
		mux.Handle("/users/{$}", getOnly(http.HandlerFunc(h.user))) // empty id: 400, not 404
	}
	notFound := func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, http.StatusNotFound, "no such path: "+strconv.Quote(truncate(r.URL.Path, 64)))
	}
	mux.HandleFunc("/users", notFound) // or the mux would redirect it to /users/, a 400
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
	finder  Finder
	timeout time.Duration
	errs    *throttle
}

func hello(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", TextPlain)
	w.Header().Set("Content-Length", strconv.Itoa(len(HelloBody)))
	w.Write([]byte(HelloBody))
}

func (h *handler) user(w http.ResponseWriter, r *http.Request) {
	id, err := ParseID(r.PathValue("id"))
	if err != nil {
		WriteError(w, http.StatusBadRequest, "bad id: "+err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	u, err := h.finder.Find(ctx, id)
	cancel()
	switch {
	case err == nil:
		WriteJSON(w, http.StatusOK, u)
	case errors.Is(err, ErrNotFound):
		WriteError(w, http.StatusNotFound, fmt.Sprintf("user %d not found", id))
	default:
		h.errs.printf("GET %s: database error: %v", r.URL.Path, err)
		WriteError(w, http.StatusServiceUnavailable, "database unavailable")
	}
}

// getOnly answers 405 to every method but GET and HEAD.
func getOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			WriteError(w, http.StatusMethodNotAllowed, "method "+strconv.Quote(truncate(r.Method, 32))+" not allowed (only GET)")
			return
		}
		next.ServeHTTP(w, r)
	})
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
