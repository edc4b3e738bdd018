package run

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"dbbench/runners/measure/loadgen"
)

// served records when each of a server's requests was being served.
type served struct {
	mu    sync.Mutex
	spans [][2]time.Time
}

func (s *served) server(t *testing.T, delay time.Duration) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		time.Sleep(delay)
		w.Header().Set("Content-Type", "application/json")
		id := strings.TrimPrefix(r.URL.Path, "/users/")
		_, _ = w.Write([]byte(`{"id":` + id + `}`))
		s.mu.Lock()
		s.spans = append(s.spans, [2]time.Time{start, time.Now()})
		s.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Two generators behind turns: no request of one is served while one of the other is,
// every turn lasts at least its length (plus the drain), and both get requests through.
func TestTurnsNeverOverlap(t *testing.T) {
	var a, b served
	urls := []string{a.server(t, 2*time.Millisecond).URL, b.server(t, 3*time.Millisecond).URL}
	tu := newTurns(2)
	var wg sync.WaitGroup
	res := make([]*loadgen.Result, 2)
	errs := make([]error, 2)
	for i, u := range urls {
		cfg := loadgen.Config{Target: u, Path: "/users/{id}", Rows: 10, Connections: 8, Gate: tu.gate(i)}
		wg.Go(func() { res[i], errs[i] = loadgen.Run(context.Background(), cfg) })
	}
	// ready returns as soon as all 16 wait; the limit is only there so that a broken gate
	// fails the check below instead of hanging the test.
	tu.ready(context.Background(), []int{8, 8}, time.Minute)
	tu.mu.Lock()
	if tu.waiting[0] != 8 || tu.waiting[1] != 8 {
		t.Errorf("before the first turn %v connections wait at the gates, want 8 and 8", tu.waiting)
	}
	tu.mu.Unlock()
	var active [2]time.Duration
	var admitted [2]int64
	for k := range 10 {
		d, n := tu.take(context.Background(), k%2, 20*time.Millisecond)
		admitted[k%2] += n
		if d < 20*time.Millisecond {
			t.Errorf("turn %d took %v, shorter than its 20 ms", k, d)
		}
		active[k%2] += d
	}
	tu.end()
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil || res[i].Requests == 0 || res[i].ErrorCount() != 0 {
			t.Fatalf("generator %d: %v, %+v", i, errs[i], res[i])
		}
	}
	a.mu.Lock()
	b.mu.Lock()
	defer a.mu.Unlock()
	defer b.mu.Unlock()
	for _, x := range a.spans {
		for _, y := range b.spans {
			if x[0].Before(y[1]) && y[0].Before(x[1]) {
				t.Fatalf("a request of A (%v–%v) was served while one of B (%v–%v) was",
					x[0].Format("15:04:05.000000"), x[1].Format(".000000"), y[0].Format("15:04:05.000000"), y[1].Format(".000000"))
			}
		}
	}
	if int64(len(a.spans)) != res[0].Requests || int64(len(b.spans)) != res[1].Requests || admitted != [2]int64{res[0].Requests, res[1].Requests} {
		t.Errorf("served %d and %d, generators counted %d and %d, turns admitted %v", len(a.spans), len(b.spans), res[0].Requests, res[1].Requests, admitted)
	}
	t.Logf("A: %d requests in %v of turns, B: %d in %v", res[0].Requests, active[0], res[1].Requests, active[1])
}

// A cancelled run ends a turn at once and lets the generators go.
func TestTurnsEndOnCancel(t *testing.T) {
	var a served
	tu := newTurns(1)
	cfg := loadgen.Config{Target: a.server(t, time.Millisecond).URL, Path: "/users/{id}", Rows: 10, Connections: 2, Gate: tu.gate(0)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := loadgen.Run(ctx, cfg); done <- err }()
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, _ = tu.take(ctx, 0, time.Hour)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a cancelled turn took %v", d)
	}
	tu.end()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the generator did not stop after the cancel and the end of the turns")
	}
}
