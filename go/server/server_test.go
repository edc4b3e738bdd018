package server

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeFinder is a Store that knows ids 1..10; fail makes it a database that is down.
// Pure logic: the layers themselves are tested against MariaDB in runners/measure/target.
type fakeFinder struct {
	fail   error
	calls  atomic.Int32
	visits [11]uint32
	mu     sync.Mutex
}

func (f *fakeFinder) List(ctx context.Context, after uint32, limit int) ([]User, error) {
	f.calls.Add(1)
	if f.fail != nil {
		return nil, f.fail
	}
	var out []User
	for id := after + 1; id <= 10 && len(out) < limit; id++ {
		out = append(out, User{ID: id, Name: "Ada Lovelace"})
	}
	return out, nil
}

func (f *fakeFinder) Insert(ctx context.Context, name string) (User, error) {
	f.calls.Add(1)
	if f.fail != nil {
		return User{}, f.fail
	}
	return User{ID: 11, Name: name}, nil
}

func (f *fakeFinder) Visit(ctx context.Context, id uint32) (Visits, error) {
	f.calls.Add(1)
	if f.fail != nil {
		return Visits{}, f.fail
	}
	if id > 10 {
		return Visits{}, ErrNotFound
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.visits[id]++
	return Visits{ID: id, Visits: f.visits[id]}, nil
}

// findOnly makes a Store of a test's Finder; the other ops are not used by its test.
type findOnly struct{ Finder }

var errUnused = errors.New("not used by this test")

func (findOnly) List(context.Context, uint32, int) ([]User, error) { return nil, errUnused }
func (findOnly) Insert(context.Context, string) (User, error)      { return User{}, errUnused }
func (findOnly) Visit(context.Context, uint32) (Visits, error)     { return Visits{}, errUnused }

func (f *fakeFinder) Find(ctx context.Context, id uint32) (User, error) {
	f.calls.Add(1)
	if f.fail != nil {
		return User{}, f.fail
	}
	if id > 10 {
		return User{}, ErrNotFound
	}
	return User{ID: id, Name: "Ada Lovelace"}, nil
}

func serve(h http.Handler, method, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}

func jsonError(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != JSON {
		t.Errorf("Content-Type = %q, want %q", ct, JSON)
	}
	var e struct{ Error string }
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error == "" {
		t.Errorf("body %q is not a JSON error: %v", w.Body, err)
	}
	return e.Error
}

func TestHandlerAnswers(t *testing.T) {
	f := &fakeFinder{}
	h := New(f, Options{})
	for _, tc := range []struct {
		method, target string
		status         int
		body           string // exact body, or a substring of the JSON error
	}{
		{"GET", "/hello", 200, "Hello, World!"},
		{"HEAD", "/hello", 200, "Hello, World!"}, // the recorder keeps what net/http drops for HEAD
		{"GET", "/users/7", 200, `{"id":7,"name":"Ada Lovelace"}`},
		{"GET", "/users/11", 404, "user 11 not found"},
		{"GET", "/users/4294967295", 404, "user 4294967295 not found"},
		{"GET", "/users/", 400, "bad id: id is empty"},
		{"GET", "/users/abc", 400, "bad id: id must contain only the digits 0-9"},
		{"GET", "/users/0", 400, "bad id: id must be at least 1"},
		{"GET", "/users/007", 400, "bad id: id must not have a leading zero"},
		{"GET", "/users/4294967296", 400, "bad id: id must be at most 4294967295"},
		{"GET", "/users/%27", 400, "bad id"},
		{"GET", "/users/1;DROP%20TABLE%20users", 400, "bad id"},
		{"GET", "/users", 400, "bad limit: limit is required"},
		{"GET", "/users/1/2", 404, "no such path"},
		{"GET", "/users/1/visit", 404, "no such path"},
		{"GET", "/", 404, "no such path"},
		{"GET", "/nope", 404, "no such path"},
		{"POST", "/users/1", 405, `method "POST" not allowed`},
		{"DELETE", "/hello", 405, `method "DELETE" not allowed`},
	} {
		w := serve(h, tc.method, tc.target)
		if w.Code != tc.status {
			t.Errorf("%s %s = %d, want %d (%s)", tc.method, tc.target, w.Code, tc.status, w.Body)
			continue
		}
		switch {
		case tc.status == 200 && tc.target == "/hello":
			if ct := w.Header().Get("Content-Type"); ct != TextPlain || w.Body.String() != tc.body {
				t.Errorf("%s /hello = %q %q", tc.method, ct, w.Body)
			}
		case tc.status == 200:
			if ct := w.Header().Get("Content-Type"); ct != JSON || w.Body.String() != tc.body {
				t.Errorf("%s %s = %q %q, want %q", tc.method, tc.target, ct, w.Body, tc.body)
			}
		default:
			if msg := jsonError(t, w); !strings.Contains(msg, tc.body) {
				t.Errorf("%s %s error = %q, want it to contain %q", tc.method, tc.target, msg, tc.body)
			}
		}
		if tc.status == 405 && w.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("%s %s: Allow = %q", tc.method, tc.target, w.Header().Get("Allow"))
		}
	}
	// Bad ids and wrong methods never reach the database.
	calls := f.calls.Load()
	serve(h, "GET", "/users/abc")
	serve(h, "POST", "/users/1")
	if f.calls.Load() != calls {
		t.Error("a bad id or a wrong method reached the Finder")
	}
}

func TestHandlerLongInputIsNotEchoed(t *testing.T) {
	w := serve(New(&fakeFinder{}, Options{}), "GET", "/"+strings.Repeat("x", 10000))
	if w.Code != 404 || w.Body.Len() > 200 {
		t.Errorf("404 for a 10 kB path = %d with a %d-byte body", w.Code, w.Body.Len())
	}
}

func TestHelloLayerHasNoUsers(t *testing.T) {
	w := serve(New(nil, Options{}), "GET", "/users/1")
	if w.Code != 404 {
		t.Errorf("hello layer GET /users/1 = %d, want 404", w.Code)
	}
}

// A database failure is a 503 whose body says so without the driver's words, which go
// to the log instead, at most one line a second. The throttle reads the test's clock,
// so a stall of the machine cannot make a second pass between two requests.
func TestDatabaseFailureIs503AndLoggedSparingly(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Unix(1000, 0)
	h := newHandler(&fakeFinder{fail: errors.New("dial tcp 127.0.0.1:3306: connection refused")},
		Options{Log: log.New(&buf, "", 0)}, func() time.Time { return clock })
	fail := func(n int) {
		t.Helper()
		for range n {
			w := serve(h, "GET", "/users/1")
			if w.Code != 503 {
				t.Fatalf("GET /users/1 with the database down = %d, want 503", w.Code)
			}
			if msg := jsonError(t, w); msg != "database unavailable" {
				t.Errorf("503 body says %q", msg)
			}
		}
	}
	lines := func() []string { return strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") }
	fail(5)
	if l := lines(); len(l) != 1 || !strings.Contains(l[0], "connection refused") || strings.Contains(l[0], "not shown") {
		t.Errorf("log after 5 failures within a second = %q, want the one error line", buf.String())
	}
	clock = clock.Add(time.Second - time.Nanosecond)
	fail(2)
	if l := lines(); len(l) != 1 {
		t.Errorf("log after 7 failures within a second = %q, want still the one line", buf.String())
	}
	// A second after the line, the next failure is logged with the count held back.
	clock = clock.Add(time.Nanosecond)
	fail(1)
	if l := lines(); len(l) != 2 || !strings.HasSuffix(l[1], "connection refused (6 similar errors not shown)") {
		t.Errorf("log a second later = %q, want a second line counting the 6 held back", buf.String())
	}
}

// slowFinder blocks until its context ends, like a database that hangs.
type slowFinder struct{}

func (slowFinder) Find(ctx context.Context, _ uint32) (User, error) {
	<-ctx.Done()
	return User{}, ctx.Err()
}

func TestTimeoutIs503(t *testing.T) {
	t0 := time.Now()
	w := serve(New(findOnly{slowFinder{}}, Options{Timeout: 50 * time.Millisecond}), "GET", "/users/1")
	if w.Code != 503 || time.Since(t0) > 5*time.Second {
		t.Errorf("hanging database = %d after %v, want 503 after the timeout", w.Code, time.Since(t0))
	}
}

// countingFinder records how many lookups run at once.
type countingFinder struct {
	now, peak atomic.Int32
}

func (c *countingFinder) Find(ctx context.Context, id uint32) (User, error) {
	n := c.now.Add(1)
	defer c.now.Add(-1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(2 * time.Millisecond)
	return User{ID: id}, nil
}

func TestLimitBoundsConcurrentLookups(t *testing.T) {
	c := &countingFinder{}
	f := Limit(findOnly{c}, 3)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.Find(context.Background(), uint32(i+1)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if p := c.peak.Load(); p < 1 || p > 3 {
		t.Errorf("peak concurrent lookups = %d, want 1..3", p)
	}
	// A waiter whose deadline passes gives up with the context's error, without reaching
	// the Finder. The first lookup says when it holds the only slot, rather than the test
	// guessing how long a goroutine takes to start.
	holder := &heldFinder{in: make(chan struct{})}
	block := Limit(findOnly{holder}, 1)
	hold, release := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { block.Find(hold, 1); close(done) }()
	<-holder.in
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := block.Find(ctx, 2); !errors.Is(err, context.DeadlineExceeded) || holder.calls.Load() != 1 {
		t.Errorf("waiting for a slot past the deadline = %v after %d lookups reached the Finder, want DeadlineExceeded after 1",
			err, holder.calls.Load())
	}
	release()
	<-done
}

// heldFinder signals in on its first lookup and holds every lookup until its context ends.
type heldFinder struct {
	in    chan struct{}
	calls atomic.Int32
}

func (h *heldFinder) Find(ctx context.Context, _ uint32) (User, error) {
	if h.calls.Add(1) == 1 {
		close(h.in)
	}
	<-ctx.Done()
	return User{}, ctx.Err()
}

func TestAdmin(t *testing.T) {
	h := Admin(func() PoolStats {
		return PoolStats{DBStats: sql.DBStats{MaxOpenConnections: 8, OpenConnections: 3, Idle: 3, WaitCount: 2, WaitDuration: time.Millisecond},
			Holds: 40, HeldDuration: 3e7}
	})
	w := serve(h, "GET", "/debug/dbstats")
	var got map[string]int64
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != 200 {
		t.Fatalf("/debug/dbstats = %d %s: %v", w.Code, w.Body, err)
	}
	want := map[string]int64{"MaxOpenConnections": 8, "OpenConnections": 3, "InUse": 0, "Idle": 3, "WaitCount": 2,
		"WaitDuration": 1e6, "MaxIdleClosed": 0, "MaxIdleTimeClosed": 0, "MaxLifetimeClosed": 0,
		"Holds": 40, "HeldDuration": 3e7}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s = %d (present %v), want %d", k, g, ok, v)
		}
	}
	if w := serve(h, "GET", "/debug/pprof/"); w.Code != 200 {
		t.Errorf("/debug/pprof/ = %d", w.Code)
	}
	if w := serve(Admin(nil), "GET", "/debug/dbstats"); w.Code != 404 {
		t.Errorf("hello's /debug/dbstats = %d, want 404", w.Code)
	}
}

// /debug/metrics serves every runtime metric the runner reads, and counts allocations.
func TestAdminMetrics(t *testing.T) {
	h := Admin(nil)
	read := func() map[string]float64 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/metrics", nil))
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != JSON {
			t.Fatalf("GET /debug/metrics = %d %q", rec.Code, rec.Header().Get("Content-Type"))
		}
		var m map[string]float64
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	before := read()
	for _, name := range Metrics {
		if _, ok := before[name]; !ok {
			t.Errorf("/debug/metrics lacks %s: %v", name, before)
		}
	}
	keep := make([][]byte, 1000)
	for i := range keep {
		keep[i] = make([]byte, 4096)
	}
	after := read()
	if d := after["/gc/heap/allocs:objects"] - before["/gc/heap/allocs:objects"]; d < 1000 {
		t.Errorf("1000 allocations counted as %v", d)
	}
	_ = keep
}
