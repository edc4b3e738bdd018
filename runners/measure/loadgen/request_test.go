package loadgen

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"dbbench/fixtures"
)

// opsServer answers each op as the targets do, and keeps what it was sent.
type opsServer struct {
	*httptest.Server
	mu     sync.Mutex
	lists  []int // after
	limits map[string]bool
	names  []string
	visits []int
	bad    []string
}

func newOpsServer(t *testing.T) *opsServer {
	s := &opsServer{limits: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch {
		case r.Method == "GET" && r.URL.Path == "/users":
			after, err := strconv.Atoi(r.URL.Query().Get("after"))
			s.limits[r.URL.Query().Get("limit")] = true
			if err != nil {
				s.bad = append(s.bad, r.URL.String())
			}
			s.lists = append(s.lists, after)
			fmt.Fprintf(w, `[{"id":%d}]`, after+1)
		case r.Method == "POST" && r.URL.Path == "/users":
			var u struct{ Name string }
			b, _ := io.ReadAll(r.Body)
			if r.Header.Get("Content-Type") != "application/json" || json.Unmarshal(b, &u) != nil || r.ContentLength != int64(len(b)) {
				s.bad = append(s.bad, string(b))
			}
			s.names = append(s.names, u.Name)
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(map[string]any{"id": 1000 + len(s.names), "name": u.Name})
		case r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/visits"):
			id, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/users/"), "/visits"))
			if b, _ := io.ReadAll(r.Body); err != nil || len(b) != 0 || r.ContentLength != 0 {
				s.bad = append(s.bad, r.URL.Path)
			}
			s.visits = append(s.visits, id)
			fmt.Fprintf(w, `{"id":%d,"visits":1}`, id)
		default:
			s.bad = append(s.bad, r.Method+" "+r.URL.String())
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// Each op sends its own request: a list's after stays within 0..N−limit (fixture rows
// only), an insert posts the JSON of a name made from a counter that Check is given,
// each connection's names its own, and an update posts no body for ids in 1..N.
func TestEachOpSendsItsRequest(t *testing.T) {
	s := newOpsServer(t)
	const rows, limit, n = 50, 10, 600
	var mu sync.Mutex
	checked := map[Op]int{}
	check := func(q Request, body []byte) error {
		mu.Lock()
		checked[q.Op]++
		mu.Unlock()
		var want string
		switch q.Op {
		case List:
			want = fmt.Sprintf(`[{"id":%d}]`, q.ID+1)
			if q.Limit != limit {
				return fmt.Errorf("limit %d in the request, want %d", q.Limit, limit)
			}
		case Insert:
			var u struct{ Name string }
			if json.Unmarshal(body, &u) != nil || u.Name != fixtures.InsertedName(q.N) {
				return fmt.Errorf("insert %s answered %s", q, body)
			}
			return nil
		case Update:
			want = fmt.Sprintf(`{"id":%d,"visits":1}`, q.ID)
		}
		if strings.TrimSpace(string(body)) != want {
			return fmt.Errorf("%s answered %s, want %s", q, body, want)
		}
		return nil
	}
	for op, status := range map[Op]int{List: 200, Insert: 201, Update: 200} {
		res := mustRun(t, Config{Target: s.URL, Op: op, Rows: rows, Limit: limit, Connections: 3, Requests: n, Seed: 9, Check: check, CheckEvery: 1})
		if res.OK != n || res.Status[status] != n {
			t.Fatalf("%s: OK %d, statuses %v, errors %v", op, res.OK, res.Status, res.ErrorSamples)
		}
	}
	if checked[List] != n || checked[Insert] != n || checked[Update] != n || len(s.bad) > 0 {
		t.Fatalf("checked %v; requests the server could not read: %q", checked, s.bad)
	}
	if !s.limits[strconv.Itoa(limit)] || len(s.limits) != 1 {
		t.Errorf("limits sent: %v, want %d only", s.limits, limit)
	}
	inRange := func(what string, xs []int, lo, hi int) {
		seen := map[int]bool{}
		for _, x := range xs {
			if x < lo || x > hi {
				t.Errorf("%s %d outside %d..%d", what, x, lo, hi)
			}
			seen[x] = true
		}
		if !seen[lo] || !seen[hi] || len(seen) < (hi-lo+1)*9/10 {
			t.Errorf("%s: %d distinct values of %d..%d in %d draws, ends seen %v %v", what, len(seen), lo, hi, len(xs), seen[lo], seen[hi])
		}
	}
	inRange("list after", s.lists, 0, rows-limit)
	inRange("update id", s.visits, 1, rows)
	names := map[string]bool{}
	for _, name := range s.names {
		names[name] = true
	}
	if len(names) != n {
		t.Errorf("%d distinct names in %d inserts", len(names), n)
	}
}

func TestOpsRefuseWhatTheyCannotSend(t *testing.T) {
	for _, c := range []Config{
		{Op: List, Rows: 5, Limit: 10}, {Op: List, Rows: 5}, {Op: Insert, Path: "/elsewhere"}, {Op: "delete", Rows: 5},
	} {
		c.Target, c.Connections, c.Requests = "http://127.0.0.1:1", 1, 1
		if _, err := c.plan(); err == nil {
			t.Errorf("plan accepted %+v", c)
		}
	}
}
