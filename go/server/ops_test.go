package server

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestParseListQuery(t *testing.T) {
	for _, tc := range []struct {
		raw          string
		after, limit int
		err          string
	}{
		{"limit=10", 0, 10, ""},
		{"after=0&limit=1", 0, 1, ""},
		{"after=990&limit=1000", 990, 1000, ""},
		{"limit=100&after=4294967295", math.MaxUint32, 100, ""},
		{"after=%34%32&limit=1%30", 42, 10, ""},              // percent-decoded
		{"limit=5&x=1&&after=3&trace", 3, 5, ""},             // others ignored
		{"", 0, 0, "bad limit: limit is required (1..1000)"}, // no limit
		{"after=5", 0, 0, "bad limit: limit is required"},
		{"limit=", 0, 0, "bad limit: limit is empty"},
		{"limit", 0, 0, "bad limit: limit is empty"},
		{"limit=0", 0, 0, "bad limit: limit must be at least 1"},
		{"limit=1001", 0, 0, "bad limit: limit must be at most 1000"},
		{"limit=99999999999", 0, 0, "bad limit: limit must be at most 1000"},
		{"limit=010", 0, 0, "bad limit: limit must not have a leading zero"},
		{"limit=-1", 0, 0, "bad limit: limit must contain only the digits 0-9"},
		{"limit=+1", 0, 0, "bad limit: limit must contain only the digits 0-9"}, // + is a space
		{"limit=1e2", 0, 0, "bad limit: limit must contain only the digits 0-9"},
		{"limit=%zz", 0, 0, "bad query string"},
		{"%zz=1&limit=1", 0, 0, "bad query string"},
		{"limit=1&limit=2", 0, 0, "bad limit: limit is given more than once"},
		{"after=1&after=1&limit=2", 0, 0, "bad after: after is given more than once"},
		{"after=&limit=2", 0, 0, "bad after: after is empty"},
		{"after=-1&limit=2", 0, 0, "bad after: after must contain only the digits 0-9"},
		{"after=00&limit=2", 0, 0, "bad after: after must not have a leading zero"},
		{"after=4294967296&limit=2", 0, 0, "bad after: after must be at most 4294967295"},
		{"after=" + strings.Repeat("0", 5000) + "1&limit=2", 0, 0, "bad after: after must not have a leading zero"},
		{"after=1;DROP%20TABLE%20users&limit=2", 0, 0, "bad after: after must contain only the digits 0-9"},
	} {
		after, limit, err := ParseListQuery(tc.raw)
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("ParseListQuery(%.40q) = %d, %d, %v; want the error %q", tc.raw, after, limit, err, tc.err)
			}
			continue
		}
		if err != nil || int(after) != tc.after || limit != tc.limit {
			t.Errorf("ParseListQuery(%q) = %d, %d, %v; want %d, %d", tc.raw, after, limit, err, tc.after, tc.limit)
		}
	}
}

func TestParseNewUser(t *testing.T) {
	long := strings.Repeat("é", MaxNameChars)
	for _, tc := range []struct {
		body, name, err string
	}{
		{`{"name":"Ada"}`, "Ada", ""},
		{` { "name" : "Zoë Gray #42" } `, "Zoë Gray #42", ""},
		{`{"name":"\u00e9\ud83d\ude00"}`, "é😀", ""}, // an escaped pair is one character
		{`{"name":"😀"}`, "😀", ""},
		{`{"name":"` + long + `"}`, long, ""}, // 64 characters, 128 bytes
		{`{"name":"x","name":"y"}`, "y", ""},  // the last one, as PHP's json_decode
		{`{"name":"` + long + `x"}`, "", "name is longer than 64 characters"},
		{`{"name":""}`, "", "name is empty"},
		{`{"name":null}`, "", "name must be a string"},
		{`{"name":42}`, "", "name must be a string"},
		{`{"name":["x"]}`, "", "name must be a string"},
		{`{}`, "", "name is required"},
		{`{"Name":"x"}`, "", `unknown field "Name"`},
		{`{"name":"x","admin":true}`, "", `unknown field "admin"`},
		{``, "", "want a JSON object"},
		{`null`, "", "want a JSON object"},
		{`[]`, "", "want a JSON object"},
		{`"x"`, "", "want a JSON object"},
		{`{"name":"x"} {}`, "", "want a JSON object"},
		{`{"name":"x"`, "", "want a JSON object"},
		{"{\"name\":\"\xff\"}", "", "not valid UTF-8"},
		{`{"name":"\ud800"}`, "", "lone UTF-16 surrogate"},
		{`{"name":"\udc00x"}`, "", "lone UTF-16 surrogate"},
		{`{"name":"\ud800\u0041"}`, "", "lone UTF-16 surrogate"},
		{`{"name":"\\ud800"}`, `\ud800`, ""}, // an escaped backslash, then text
	} {
		name, err := ParseNewUser([]byte(tc.body))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseNewUser(%.40q) = %q, %v; want the error %q", tc.body, name, err, tc.err)
			}
			continue
		}
		if err != nil || name != tc.name {
			t.Errorf("ParseNewUser(%.40q) = %q, %v; want %q", tc.body, name, err, tc.name)
		}
	}
}

// FuzzParseNewUser: a name that is accepted is valid UTF-8 of 1..64 characters and
// encodes back into a body that gives the same name.
func FuzzParseNewUser(f *testing.F) {
	for _, s := range []string{`{"name":"Ada"}`, `{"name":"\ud83d\ude00"}`, `{"name":"\ud800"}`, `{}`, `{"name":"a\\u0000"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		name, err := ParseNewUser(body)
		if err != nil {
			return
		}
		if !utf8.ValidString(name) || utf8.RuneCountInString(name) < 1 || utf8.RuneCountInString(name) > MaxNameChars {
			t.Fatalf("accepted %q from %q", name, body)
		}
		b, _ := json.Marshal(map[string]string{"name": name})
		if again, err := ParseNewUser(b); err != nil || again != name {
			t.Fatalf("round trip of %q: %q, %v", name, again, err)
		}
	})
}

func TestOpsAnswers(t *testing.T) {
	f := &fakeFinder{}
	h := New(f, Options{})
	for _, tc := range []struct {
		method, target, body string
		status               int
		want                 string // exact body, or a substring of the JSON error
		allow                string // the Allow header of a 405
	}{
		{"GET", "/users?after=7&limit=2", "", 200, `[{"id":8,"name":"Ada Lovelace"},{"id":9,"name":"Ada Lovelace"}]`, ""},
		{"GET", "/users?after=9&limit=1000", "", 200, `[{"id":10,"name":"Ada Lovelace"}]`, ""},
		{"GET", "/users?after=10&limit=5", "", 200, `[]`, ""},
		{"HEAD", "/users?limit=1", "", 200, `[{"id":1,"name":"Ada Lovelace"}]`, ""},
		{"GET", "/users?limit=0", "", 400, "bad limit: limit must be at least 1", ""},
		{"GET", "/users?after=x&limit=1", "", 400, "bad after", ""},
		{"POST", "/users", `{"name":"Zoë"}`, 201, `{"id":11,"name":"Zoë"}`, ""},
		{"POST", "/users", `{"name":""}`, 400, "bad body: name is empty", ""},
		{"POST", "/users", ``, 400, "bad body: want a JSON object", ""},
		{"POST", "/users?limit=1", `{"name":"q"}`, 201, `{"id":11,"name":"q"}`, ""}, // the query is a GET's
		{"PUT", "/users", `{"name":"x"}`, 405, `method "PUT" not allowed (only GET or POST)`, "GET, HEAD, POST"},
		{"DELETE", "/users", "", 405, `not allowed`, "GET, HEAD, POST"},
		{"POST", "/users/7/visits", "", 200, `{"id":7,"visits":1}`, ""},
		{"POST", "/users/7/visits", "ignored", 200, `{"id":7,"visits":2}`, ""},
		{"POST", "/users/11/visits", "", 404, "user 11 not found", ""},
		{"POST", "/users/0/visits", "", 400, "bad id: id must be at least 1", ""},
		{"POST", "/users/abc/visits", "", 400, "bad id", ""},
		{"POST", "/users//visits", "", 404, "no such path", ""},
		{"GET", "/users/7/visits", "", 405, `method "GET" not allowed (only POST)`, "POST"},
		{"HEAD", "/users/7/visits", "", 405, `not allowed`, "POST"},
		{"POST", "/users/7", "", 405, `method "POST" not allowed (only GET)`, "GET, HEAD"},
		{"POST", "/users/7/visits/1", "", 404, "no such path", ""},
		{"POST", "/hello", "", 405, `not allowed`, "GET, HEAD"},
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(tc.method, tc.target, strings.NewReader(tc.body)))
		if w.Code != tc.status {
			t.Errorf("%s %s = %d, want %d (%s)", tc.method, tc.target, w.Code, tc.status, w.Body)
			continue
		}
		if tc.status < 300 {
			if ct := w.Header().Get("Content-Type"); ct != JSON || w.Body.String() != tc.want {
				t.Errorf("%s %s = %q %s, want %s", tc.method, tc.target, ct, w.Body, tc.want)
			}
		} else if msg := jsonError(t, w); !strings.Contains(msg, tc.want) {
			t.Errorf("%s %s error = %q, want it to contain %q", tc.method, tc.target, msg, tc.want)
		}
		if got := w.Header().Get("Allow"); got != tc.allow {
			t.Errorf("%s %s: Allow = %q, want %q", tc.method, tc.target, got, tc.allow)
		}
		if loc := w.Header().Get("Location"); (tc.status == 201) != (loc == "/users/11") {
			t.Errorf("%s %s: Location = %q", tc.method, tc.target, loc)
		}
	}
	// Bad input never reaches the database.
	calls := f.calls.Load()
	for _, r := range [][3]string{{"GET", "/users?limit=0", ""}, {"POST", "/users", "{}"}, {"POST", "/users/0/visits", ""},
		{"GET", "/users/1/visits", ""}, {"PATCH", "/users", ""}} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(r[0], r[1], strings.NewReader(r[2])))
	}
	if f.calls.Load() != calls {
		t.Error("bad input reached the Store")
	}
}

func TestInsertBodyOverTheLimitIs413(t *testing.T) {
	f := &fakeFinder{}
	w := httptest.NewRecorder()
	body := `{"name":"` + strings.Repeat("x", MaxBody) + `"}`
	New(f, Options{}).ServeHTTP(w, httptest.NewRequest("POST", "/users", strings.NewReader(body)))
	if w.Code != 413 || f.calls.Load() != 0 {
		t.Errorf("POST /users with %d bytes = %d (%d calls), want 413", len(body), w.Code, f.calls.Load())
	}
	jsonError(t, w)
}

func TestOpsDatabaseFailureIs503(t *testing.T) {
	h := New(&fakeFinder{fail: errors.New("connection refused")}, Options{})
	for _, r := range [][3]string{{"GET", "/users?limit=3", ""}, {"POST", "/users", `{"name":"x"}`}, {"POST", "/users/1/visits", ""}} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(r[0], r[1], strings.NewReader(r[2])))
		if w.Code != 503 || jsonError(t, w) != "database unavailable" {
			t.Errorf("%s %s with the database down = %d %s", r[0], r[1], w.Code, w.Body)
		}
	}
}

func TestHelloLayerHasNoWrites(t *testing.T) {
	h := New(nil, Options{})
	for _, r := range [][2]string{{"GET", "/users?limit=1"}, {"POST", "/users"}, {"POST", "/users/1/visits"}} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(r[0], r[1], strings.NewReader(`{"name":"x"}`)))
		if w.Code != 404 {
			t.Errorf("hello layer %s %s = %d, want 404", r[0], r[1], w.Code)
		}
	}
}

// Limit bounds every op, not only get.
func TestLimitBoundsEveryOp(t *testing.T) {
	c := &countingStore{}
	s := Limit(c, 2)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			var err error
			switch i % 3 {
			case 0:
				_, err = s.List(ctx, 0, 10)
			case 1:
				_, err = s.Insert(ctx, "x"+strconv.Itoa(i))
			default:
				_, err = s.Visit(ctx, 1)
			}
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if p := c.peak.Load(); p < 1 || p > 2 {
		t.Errorf("peak concurrent ops = %d, want 1..2", p)
	}
}

// countingStore records how many ops run at once.
type countingStore struct{ countingFinder }

func (c *countingStore) List(ctx context.Context, after uint32, _ int) ([]User, error) {
	u, err := c.Find(ctx, after+1)
	return []User{u}, err
}

func (c *countingStore) Insert(ctx context.Context, name string) (User, error) {
	u, err := c.Find(ctx, 11)
	u.Name = name
	return u, err
}

func (c *countingStore) Visit(ctx context.Context, id uint32) (Visits, error) {
	_, err := c.Find(ctx, id)
	return Visits{ID: id, Visits: 1}, err
}
