package saturation

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"dbbench/runners/loadgen"
)

// End to end: the real load generator against a server of known capacity (one request
// at a time, 5 ms each: at most 200 req/s), for the quick preset's 1.5 s. Driven at
// twice its capacity the point is marked past capacity; at half, it is not. A
// generator made slow on purpose (a body check that outlasts the interval between
// sends) is said to be behind, not the target. It drives real load: run it under the
// heavy lock; -short skips it.
func TestEndToEndAgainstKnownCapacity(t *testing.T) {
	if testing.Short() {
		t.Skip("drives load at a local server")
	}
	const service = 5 * time.Millisecond
	const capacity = float64(time.Second / service)
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		time.Sleep(service)
		mu.Unlock()
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	measure := func(rate float64, check func(uint32, []byte) error) Verdict {
		res, err := loadgen.Run(context.Background(), loadgen.Config{Target: srv.URL, Path: "/hello",
			Connections: 8, Rate: rate, Duration: 1500 * time.Millisecond, Check: check, CheckEvery: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.ErrorCount() != 0 {
			t.Fatalf("errors %v: %v", res.Errors, res.ErrorSamples)
		}
		v := Judge(FromResult(res))
		t.Logf("offered %g req/s: %s: %s", rate, v.State, v.Reason)
		return v
	}

	if v := measure(2*capacity, nil); v.State != PastCapacity || !v.Shortfall || !v.Backlog {
		t.Errorf("twice the capacity: %+v", v)
	}
	if v := measure(capacity/2, nil); v.State != OK {
		t.Errorf("half the capacity: %+v", v)
	}
	slowCheck := func(uint32, []byte) error {
		time.Sleep(30 * time.Millisecond) // each connection is due every 16 ms at 500 req/s
		return nil
	}
	if v := measure(500, slowCheck); v.State != GeneratorBehind {
		t.Errorf("a generator slower than its schedule: %+v", v)
	}
}
