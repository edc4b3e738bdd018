package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"dbbench/fixtures"
	"dbbench/runners/results"
)

// verifySample is how many bodies are compared with name(id) before a variant is measured.
const verifySample = 50

// verify checks a target before it is measured: a sample of bodies equals the fixture
// function, a malformed id gets 400 and an id beyond the table 404. hello is checked
// for its fixed body instead when the layer uses no database.
func verify(ctx context.Context, base string, db bool, rows int, seed uint64) *results.Verification {
	v := &results.Verification{}
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(path string) (int, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			return 0, nil, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp.StatusCode, body, err
	}
	fail := func(format string, args ...any) *results.Verification {
		v.Error = fmt.Sprintf(format, args...)
		return v
	}
	if !db {
		status, body, err := get("/hello")
		if err != nil || status != 200 || string(body) != "Hello, World!" {
			return fail("GET /hello = %d %q, %v; want 200 \"Hello, World!\"", status, body, err)
		}
		v.Bodies = 1
		return v
	}
	r := rand.New(rand.NewPCG(seed, 0x76657269667921)) // "verify!": a stream of its own
	ids := []uint32{1, uint32(rows)}
	for len(ids) < verifySample {
		ids = append(ids, uint32(1+r.IntN(rows)))
	}
	for _, id := range ids {
		status, body, err := get("/users/" + strconv.FormatUint(uint64(id), 10))
		if err != nil {
			return fail("GET /users/%d: %v", id, err)
		}
		if status != 200 {
			return fail("GET /users/%d = %d %s; want 200", id, status, truncate(body))
		}
		if err := CheckUser(id, body); err != nil {
			return fail("GET /users/%d: %v", id, err)
		}
		v.Bodies++
	}
	var err error
	if v.BadID, _, err = get("/users/abc"); err != nil || v.BadID != 400 {
		return fail("GET /users/abc = %d, %v; want 400", v.BadID, err)
	}
	beyond := strconv.Itoa(rows + 1)
	if v.UnknownID, _, err = get("/users/" + beyond); err != nil || v.UnknownID != 404 {
		return fail("GET /users/%s = %d, %v; want 404", beyond, v.UnknownID, err)
	}
	return v
}

// CheckUser says whether body is the JSON the contract promises for id.
func CheckUser(id uint32, body []byte) error {
	var u struct {
		ID   *uint32 `json:"id"`
		Name *string `json:"name"`
	}
	if err := json.Unmarshal(body, &u); err != nil {
		return fmt.Errorf("body %s is not JSON: %v", truncate(body), err)
	}
	if u.ID == nil || u.Name == nil {
		return fmt.Errorf("body %s lacks id or name", truncate(body))
	}
	if *u.ID != id || *u.Name != fixtures.Name(id) {
		return fmt.Errorf("body %s, want id %d name %q", truncate(body), id, fixtures.Name(id))
	}
	return nil
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return strconv.Quote(string(b[:200])) + "…"
	}
	return strconv.Quote(string(b))
}
