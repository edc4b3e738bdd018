package target

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A Go target's hold is the pool's held time between two readings; a reading with no
// new hold, or no admin listener, is an error rather than a zero.
func TestGoHoldsReadThePoolsCounters(t *testing.T) {
	counters := []string{
		`{"Holds": 10, "HeldDuration": 5000000}`,
		`{"Holds": 11, "HeldDuration": 5750000}`, // one request, 0.75 ms
		`{"Holds": 13, "HeldDuration": 7000000}`, // a write: two holds, 1.25 ms
		`{"Holds": 13, "HeldDuration": 7000000}`, // nothing held
	}
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/debug/dbstats" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, counters[min(n, len(counters)-1)])
		n++
	}))
	defer srv.Close()
	ctx := context.Background()
	h := &goHolds{admin: srv.URL}
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for _, want := range []time.Duration{750 * time.Microsecond, 1250 * time.Microsecond} {
		if d, err := h.Next(ctx); err != nil || d != want {
			t.Errorf("Next = %v, %v; want %v", d, err, want)
		}
	}
	if d, err := h.Next(ctx); err == nil {
		t.Errorf("Next with no new hold = %v, want an error", d)
	}
	if _, err := ReadPool(ctx, ""); err == nil {
		t.Error("ReadPool without an admin listener: no error")
	}
}
