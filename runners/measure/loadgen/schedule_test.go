package loadgen

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"dbbench/runners/histogram"
)

func TestClassifyLate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Millisecond))) }
	for _, tc := range []struct {
		name            string
		idealFree, sent time.Time
		want            lateness
	}{
		{"on time", time.Time{}, ms(0.1), onTime},
		{"at the threshold", time.Time{}, ms(1), onTime},
		{"first send, late", time.Time{}, ms(3), lateGenerator},
		{"connection free early, sent late", ms(-5), ms(3), lateGenerator},
		{"answer came late, sent at once", ms(20), ms(20.2), lateTarget},
		{"answer late, then the generator later still", ms(2), ms(10), lateGenerator},
		{"equal shares go to the target", ms(2), ms(4), lateTarget},
	} {
		if got := classifyLate(t0, tc.idealFree, tc.sent); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestScheduledCountsTheSchedule(t *testing.T) {
	for _, tc := range []struct {
		conns    int
		rate     float64
		dur      time.Duration
		requests int64
		want     int64
	}{
		{4, 400, time.Second, 0, 400},
		// Interval 30 ms, phases 0, 10, 20 ms: 34 + 33 + 33 sends before 1 s.
		{3, 100, time.Second, 0, 100},
		{4, 400, time.Second, 150, 150},
		{4, 400, 0, 150, 150},
		{4, 0, time.Second, 0, 0}, // closed loop has no schedule
	} {
		p, err := Config{Target: "http://127.0.0.1:1", Path: "/hello", Connections: tc.conns, Rate: tc.rate,
			Duration: tc.dur, Requests: tc.requests}.plan()
		if err != nil {
			t.Fatal(err)
		}
		if got := p.scheduled(); got != tc.want {
			t.Errorf("%d connections at %g/s for %v (requests %d): scheduled %d, want %d",
				tc.conns, tc.rate, tc.dur, tc.requests, got, tc.want)
		}
	}
}

// newCapacityServer serves /hello one request at a time, each taking service: its
// capacity is at most 1/service requests per second, whatever the connections.
func newCapacityServer(t *testing.T, service time.Duration) string {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		time.Sleep(service)
		mu.Unlock()
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// checkTimeline checks that the timeline and tail account for every request, late
// send and latency the result counted.
func checkTimeline(t *testing.T, res *Result) {
	t.Helper()
	if len(res.Timeline) != TimelineBuckets || res.Window <= 0 {
		t.Fatalf("timeline of %d slices over %v", len(res.Timeline), res.Window)
	}
	completed, responses, late := res.Tail.Completed, res.Tail.Responses, res.Tail.Late
	for _, b := range res.Timeline {
		completed, responses, late = completed+b.Completed, responses+b.Responses, late+b.Late
		if b.Responses > 0 && (b.Latency < b.Service || b.Service <= 0) {
			t.Fatalf("slice %+v: latency from the intended time below service time", b)
		}
	}
	if completed != res.Requests || responses != res.Latency.TotalCount() || late != res.Late {
		t.Fatalf("timeline counts %d completed, %d responses, %d late; result %d, %d, %d",
			completed, responses, late, res.Requests, res.Latency.TotalCount(), res.Late)
	}
	if res.Late != res.LateTarget+res.LateGenerator {
		t.Fatalf("late %d != target %d + generator %d", res.Late, res.LateTarget, res.LateGenerator)
	}
}

func logTimeline(t *testing.T, res *Result) {
	t.Helper()
	var line string
	for _, b := range res.Timeline {
		line += fmt.Sprintf(" %d/%v/%d", b.Completed, b.Latency.Round(100*time.Microsecond), b.Late)
	}
	t.Logf("QPS %.0f of %g; scheduled %d, requests %d, unsent %d, late %d (target %d, generator %d); busy %.2f of %d procs\n  timeline (completed/mean latency/late):%s\n  tail %+v\n  send delay %v",
		res.QPS, res.Rate, res.Scheduled, res.Requests, res.Unsent, res.Late, res.LateTarget, res.LateGenerator,
		res.GeneratorBusy(), res.Procs, line, res.Tail, histogram.Summarize(res.SendDelay))
}

// A server of known capacity offered twice that: the schedule is not kept, the
// sends are late because connections wait for answers, and latency rises through the
// window. Offered half: every send goes out, on time.
func TestOpenLoopAgainstKnownCapacity(t *testing.T) {
	const service = 5 * time.Millisecond // at most 200 req/s
	const capacity = float64(time.Second / service)
	url := newCapacityServer(t, service)
	run := func(rate float64) *Result {
		res := mustRun(t, Config{Target: url, Path: "/hello", Connections: 8, Rate: rate, Duration: 1500 * time.Millisecond})
		logTimeline(t, res)
		if res.ErrorCount() != 0 {
			t.Fatalf("errors %v: %v", res.Errors, res.ErrorSamples)
		}
		if want := int64(rate * 1.5); res.Scheduled != want {
			t.Fatalf("scheduled %d, want %d", res.Scheduled, want)
		}
		if res.Scheduled != res.Requests+res.Unsent {
			t.Fatalf("scheduled %d != requests %d + unsent %d", res.Scheduled, res.Requests, res.Unsent)
		}
		if res.SendDelay.TotalCount() != res.Requests {
			t.Fatalf("send delays %d for %d requests", res.SendDelay.TotalCount(), res.Requests)
		}
		checkTimeline(t, res)
		return res
	}

	over := run(2 * capacity)
	if over.QPS > capacity*1.05 {
		t.Fatalf("QPS %.0f beyond the server's capacity %.0f", over.QPS, capacity)
	}
	if over.Unsent < over.Scheduled/4 {
		t.Fatalf("unsent %d of %d at twice the capacity", over.Unsent, over.Scheduled)
	}
	// Each connection waits 8 × 5 ms for an answer and is due every 20 ms: nearly every
	// send is late, and for the target's sake.
	if over.LateTarget < over.Requests/2 || over.LateGenerator > over.LateTarget/4 {
		t.Fatalf("late %d of %d: target %d, generator %d; want mostly the target's", over.Late, over.Requests, over.LateTarget, over.LateGenerator)
	}
	first, last := over.Timeline[0].Latency, over.Timeline[TimelineBuckets-1].Latency
	if last < 3*first {
		t.Fatalf("latency %v in the first slice, %v in the last: the backlog does not show", first, last)
	}

	under := run(capacity / 2)
	// At half the capacity a connection is free whenever a send is due, so a send goes
	// unsent only when the generator itself is still behind as the window ends, and
	// only those due while it was. Allow the sends of the window's last slice (150 ms of
	// a stalled generator): twice the capacity leaves half its schedule unsent, since 5 ms
	// a request lets at most 308 of 600 go out.
	if under.Unsent > under.Scheduled/TimelineBuckets {
		t.Fatalf("unsent %d of %d at half the capacity", under.Unsent, under.Scheduled)
	}
	// A send is late for the target's sake only when the answers before it kept the
	// connection busy past its due time (see targetLateLimit). Here answers take 5 ms and
	// a connection is due every 80 ms, so that takes service times beyond 40 ms, which
	// only a stall of the machine gives, and then only as far as they go.
	interval := time.Duration(8 / (capacity / 2) * float64(time.Second))
	if limit := targetLateLimit(under.Service, interval); float64(under.LateTarget) > limit {
		t.Fatalf("late for the target %d of %d at half the capacity, more than the %.1f its service times allow (%v)",
			under.LateTarget, under.Scheduled, limit, histogram.Summarize(under.Service))
	}
}

// targetLateLimit is the most open-loop sends that classifyLate can blame on the target,
// given the service times in h and the interval between one connection's sends. Send k
// is late for the target's sake only when the connection's ideal generator is still
// busy at its due time: b(k-1) > 0 in b(k) = max(0, b(k-1) + service(k) - interval).
// Within a run of n such sends the service times add up to more than n intervals, so
// their parts above half an interval add up to more than n half intervals. With no
// answer slower than half the interval, nothing is late for the target.
func targetLateLimit(h *histogram.Histogram, interval time.Duration) float64 {
	half := float64(interval / 2)
	var excess float64
	for _, b := range h.Distribution() {
		if over := float64(b.To) - half; b.Count > 0 && over > 0 { // To: each value's upper bound
			excess += float64(b.Count) * over
		}
	}
	return excess / half
}

// A generator too slow for its own schedule (here: a body check that takes longer
// than the interval between sends) is told apart from a slow target: its connections
// are free, yet the sends go out late.
func TestOpenLoopGeneratorBehindIsTheGenerators(t *testing.T) {
	s := newUsersServer(t, 0)
	res := mustRun(t, Config{Target: s.URL, Rows: 100, Connections: 2, Rate: 200, Duration: time.Second,
		CheckEvery: 1, Check: func(q Request, body []byte) error {
			time.Sleep(15 * time.Millisecond) // each connection is due every 10 ms
			return checkID(q, body)
		}})
	logTimeline(t, res)
	if res.ErrorCount() != 0 {
		t.Fatalf("errors %v: %v", res.Errors, res.ErrorSamples)
	}
	checkTimeline(t, res)
	if res.LateGenerator < res.Requests/2 || res.LateTarget > res.LateGenerator/4 {
		t.Fatalf("late %d of %d: target %d, generator %d; want mostly the generator's", res.Late, res.Requests, res.LateTarget, res.LateGenerator)
	}
}

func TestClosedLoopHasATimelineAndNoSchedule(t *testing.T) {
	s := newUsersServer(t, time.Millisecond)
	res := mustRun(t, Config{Target: s.URL, Rows: 100, Connections: 4, Duration: time.Second})
	checkTimeline(t, res)
	if res.Scheduled != 0 || res.Late != 0 || res.SendDelay != nil {
		t.Fatalf("closed loop: scheduled %d, late %d, send delays %v", res.Scheduled, res.Late, res.SendDelay)
	}
	if res.Procs < 1 || res.GeneratorBusy() <= 0 || res.GeneratorBusy() > 1.5 {
		t.Fatalf("procs %d, busy %.2f", res.Procs, res.GeneratorBusy())
	}
	// A closed-loop connection sends only while the window is open, so at most its last
	// request finishes after it: the tail holds at most one per connection.
	if res.Tail.Completed > 4 {
		t.Fatalf("%d requests finished after the window, more than the 4 connections had out: %+v", res.Tail.Completed, res.Tail)
	}
	// The completions are spread over the window's slices by the time they finished. A
	// connection finishes a request every millisecond or so, but a stall of the machine
	// can leave a 100-ms slice empty, so this asks only for completions in most slices
	// and in at least two of each half (emptying four of a half's five takes some 400 ms
	// of stalls in 500): slices put on a wrong scale crowd into one half, with the
	// requests in flight at the end as a straggler, or spill into the tail.
	var filled [2]int
	for i, b := range res.Timeline {
		if b.Completed > 0 {
			filled[2*i/TimelineBuckets]++
		}
	}
	if filled[0]+filled[1] < TimelineBuckets/2 || filled[0] < 2 || filled[1] < 2 {
		t.Fatalf("a steady closed loop completed requests in %d slices of the first half and %d of the second: %+v", filled[0], filled[1], res.Timeline)
	}

	// A request count without a duration has no window to slice.
	res = mustRun(t, Config{Target: s.URL, Rows: 100, Connections: 2, Requests: 20})
	if res.Timeline != nil || res.Window != 0 || res.Tail.Completed != 0 {
		t.Fatalf("no window: timeline %v, window %v, tail %+v", res.Timeline, res.Window, res.Tail)
	}
}

// Recording a finished request (histograms, lateness, timeline) allocates nothing.
func TestRecordAllocations(t *testing.T) {
	r := &run{plan: &plan{Config: Config{Rows: 100, Connections: 1, Duration: time.Second, Rate: 100}, interval: 10 * time.Millisecond}}
	r.start = time.Now()
	w := newWorker(r, 0)
	resp := response{status: 200}
	allocs := testing.AllocsPerRun(500, func() {
		now := time.Now()
		w.record(Request{Op: Get, ID: 1}, resp, nil, now.Add(-2*time.Millisecond), now, now.Add(time.Millisecond), lateGenerator)
	})
	if allocs > 0 {
		t.Fatalf("%.1f allocations per recorded request", allocs)
	}
	if w.counts.late[lateGenerator] == 0 {
		t.Fatal("nothing recorded")
	}
}
