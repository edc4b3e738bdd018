package run

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"

	"dbbench/runners/histogram"
	"dbbench/runners/measure/loadgen"
	"dbbench/runners/saturation"
)

// End to end: the real load generator against a server of known capacity (one request
// at a time, 5 ms each: at most 200 req/s), for the quick preset's 1.5 s. Driven at
// twice its capacity the point is marked past capacity; at a quarter, it is not (a
// quarter, not a half: on a busy machine a 5-ms sleep overruns, and at half the
// capacity 9 ms of service would already fill it). A generator made slow on purpose
// (a body check that outlasts the interval between sends) against a server that
// answers at once is said to be behind, not the target. -short skips it.
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
	// A target that cannot be late: whatever lateness a run shows is the generator's.
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok"))
	}))
	t.Cleanup(fast.Close)
	measure := func(url string, rate float64, check func(loadgen.Request, []byte) error) (saturation.Verdict, saturation.Summary) {
		res, err := loadgen.Run(context.Background(), loadgen.Config{Target: url, Path: "/hello",
			Connections: 8, Rate: rate, Duration: 1500 * time.Millisecond, Check: check, CheckEvery: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.ErrorCount() != 0 {
			t.Fatalf("errors %v: %v", res.Errors, res.ErrorSamples)
		}
		s := saturationSummary(res)
		v := saturation.Judge(s)
		t.Logf("offered %g req/s: %s: %s", rate, v.State, v.Reason)
		return v, s
	}

	if v, _ := measure(srv.URL, 2*capacity, nil); v.State != saturation.PastCapacity || !v.Shortfall || !v.Backlog {
		t.Errorf("twice the capacity: %+v", v)
	}
	// At a quarter of its capacity the target keeps up, but the machine may not let the
	// run show it cleanly: a generator stalled mid-window sends late (generator behind), and one
	// stalled as the window ends leaves sends unsent (a shortfall, so past capacity).
	// Neither is the target's doing, so the point is held to the signals only a target
	// that cannot keep up gives: a backlog growing across the window, and sends that
	// waited for the answer before them. Twice the capacity has both.
	v, s := measure(srv.URL, capacity/4, nil)
	if v.Backlog || v.LateTarget > saturation.LateShareMax {
		t.Errorf("a quarter of the capacity: the target looks past it: %+v", v)
	}
	switch v.State {
	case saturation.OK:
	case saturation.GeneratorBehind:
		t.Logf("a quarter of the capacity: the generator fell behind its schedule on this machine")
	case saturation.PastCapacity:
		// With neither signal, past capacity can only be a shortfall. It must be one by
		// this count too (the timeline's slices after the first against the rate), and the
		// requests missing must be sends the generator never made or answers that came
		// after the window (give or take MinShortfall, the judge's grain), not requests
		// the target failed to answer in time.
		c, span := int64(0), s.Window*float64(len(s.Timeline)-1)/float64(len(s.Timeline))
		for _, b := range s.Timeline[1:] {
			c += b.Completed
		}
		expected := s.Offered * span
		missing := expected - float64(c)
		confirmed := missing > max(saturation.Tolerance*expected, saturation.MinShortfall)
		if !v.Shortfall || !confirmed || missing > float64(s.Unsent+s.Tail.Completed+saturation.MinShortfall) {
			t.Errorf("a quarter of the capacity: past capacity with %.0f requests missing, %d unsent and %d after the window: %+v",
				missing, s.Unsent, s.Tail.Completed, v)
		} else {
			t.Logf("a quarter of the capacity: a shortfall of sends the generator did not make in the window (%d unsent, %d after it)",
				s.Unsent, s.Tail.Completed)
		}
	default:
		t.Errorf("a quarter of the capacity: %+v", v)
	}
	slowCheck := func(loadgen.Request, []byte) error {
		time.Sleep(30 * time.Millisecond) // each connection is due every 16 ms at 500 req/s
		return nil
	}
	if v, _ := measure(fast.URL, 500, slowCheck); v.State != saturation.GeneratorBehind {
		t.Errorf("a generator slower than its schedule: %+v", v)
	}
}

func TestFromResult(t *testing.T) {
	lat := histogram.New()
	for i := range 100 {
		histogram.Record(lat, time.Duration(i+1)*time.Millisecond)
	}
	r := &loadgen.Result{Mode: "open", Connections: 8, Rate: 400, Requests: 100, Unsent: 5, Scheduled: 105,
		LateTarget: 7, LateGenerator: 2, Latency: lat, Elapsed: 2 * time.Second, Window: 1500 * time.Millisecond,
		CPU: time.Second, Procs: 2,
		Timeline: []loadgen.Bucket{{Completed: 3, Responses: 2, Latency: 4 * time.Millisecond, Service: time.Millisecond, Late: 1}},
		Tail:     loadgen.Bucket{Completed: 1, Responses: 1, Latency: time.Second}}
	s := saturationSummary(r)
	want := saturation.Summary{Mode: saturation.Open, Connections: 8, Offered: 400, Window: 1.5, Elapsed: 2, Scheduled: 105, Unsent: 5,
		LateTarget: 7, LateGenerator: 2, Completed: 100, LateAfter: loadgen.LateAfter.Seconds(), GeneratorBusy: 0.25,
		P99:      histogram.Summarize(lat).P99.Seconds(),
		Timeline: []saturation.Bucket{{Completed: 3, Responses: 2, Latency: 0.004, Service: 0.001, Late: 1}},
		Tail:     saturation.Bucket{Completed: 1, Responses: 1, Latency: 1}}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("summary\n%+v\nwant\n%+v", s, want)
	}
	if s.P99 < 0.098 || s.P99 > 0.1 {
		t.Fatalf("p99 %v of 1..100 ms", s.P99)
	}
}
