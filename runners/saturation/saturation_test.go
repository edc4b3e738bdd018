package saturation

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"dbbench/runners/measure/loadgen"
)

// A server of 200 req/s (one slot, 5 ms a request), driven by 8 connections for the
// quick preset's 1.5 s.
func server200(rate float64) sim {
	return sim{conns: 8, rate: rate, window: 1500 * time.Millisecond, service: 5 * time.Millisecond, servers: 1, busy: 0.05}
}

func judge(t *testing.T, s Summary) Verdict {
	t.Helper()
	v := Judge(s)
	t.Logf("%s: %s", v.State, v.Reason)
	return v
}

func wantWords(t *testing.T, v Verdict, words ...string) {
	t.Helper()
	for _, w := range words {
		if !strings.Contains(v.Reason, w) {
			t.Errorf("reason %q does not say %q", v.Reason, w)
		}
	}
}

func TestOpenLoopBelowCapacityIsOK(t *testing.T) {
	v := judge(t, server200(100).run())
	if v.State != OK || v.Shortfall || v.Backlog || v.LateTarget != 0 || v.LateGenerator != 0 {
		t.Fatalf("half the capacity: %+v", v)
	}
	if math.Abs(v.Achieved-100) > 1 {
		t.Fatalf("achieved %.1f req/s of 100 offered", v.Achieved)
	}
	wantWords(t, v, "achieved 100 of 100 req/s offered (100%)", "0% of sends late")
}

func TestOpenLoopAtTwiceCapacityIsPastCapacityByEverySignal(t *testing.T) {
	v := judge(t, server200(400).run())
	if v.State != PastCapacity || !v.Shortfall || !v.Backlog || v.LateTarget <= LateShareMax {
		t.Fatalf("twice the capacity: %+v", v)
	}
	if math.Abs(v.Achieved-200) > 200*Tolerance {
		t.Fatalf("achieved %.1f req/s from a server of 200", v.Achieved)
	}
	if v.LatencyEnd < 3*v.LatencyStart {
		t.Fatalf("latency from %.3f s to %.3f s: the backlog should dwarf the start", v.LatencyStart, v.LatencyEnd)
	}
	wantWords(t, v, "achieved 200 of 400 req/s offered (50%)", "scheduled sends never went out",
		"a backlog that keeps growing", "waiting for the answer before them", "queueing, not service time")
}

// Just past capacity the shortfall hides within the tolerance, but the backlog grows
// steadily through the window: that alone marks the point.
func TestOpenLoopJustPastCapacityShowsAsABacklog(t *testing.T) {
	v := judge(t, server200(204).run())
	if v.Shortfall {
		t.Fatalf("2%% over capacity should be within the %.0f%% tolerance: %+v", 100*Tolerance, v)
	}
	if v.State != PastCapacity || !v.Backlog {
		t.Fatalf("2%% over capacity, a growing backlog: %+v", v)
	}
	wantWords(t, v, "a backlog that keeps growing")
}

// A stall of 100 ms in the middle: latency jumps, then the target catches up. That is
// a queue that drains, not a point past capacity.
func TestOpenLoopTransientStallIsNotABacklog(t *testing.T) {
	m := sim{conns: 16, rate: 400, window: 1500 * time.Millisecond, service: time.Millisecond, servers: 4,
		stallAt: 700 * time.Millisecond, stall: 100 * time.Millisecond, busy: 0.05}
	v := judge(t, m.run())
	if v.State != OK || v.Backlog || v.Shortfall {
		t.Fatalf("a stall the target recovers from: %+v", v)
	}
	if v.LateTarget == 0 {
		t.Fatalf("the stall made no send late: the simulation did not stall")
	}
}

// The generator's own lateness is told apart and said instead, even when it also
// makes the throughput fall short and the latency grow.
func TestOpenLoopGeneratorBehind(t *testing.T) {
	fast := sim{conns: 8, rate: 400, window: 1500 * time.Millisecond, service: 200 * time.Microsecond, servers: 8, busy: 0.2}
	for name, lag := range map[string]time.Duration{
		"late but keeping the rate": 3 * time.Millisecond,
		"falling behind":            30 * time.Millisecond, // each connection is due every 20 ms
	} {
		t.Run(name, func(t *testing.T) {
			m := fast
			m.genLag = lag
			v := judge(t, m.run())
			if v.State != GeneratorBehind || v.LateGenerator <= LateShareMax || v.LateTarget > 0 {
				t.Fatalf("generator %v late on every send: %+v", lag, v)
			}
			wantWords(t, v, "although their connection was free", "could not keep its own schedule",
				"it was held up", "describe the generator, not the target")
		})
	}
	m := fast
	m.busy = 0.95
	v := judge(t, m.run())
	if v.State != GeneratorBehind {
		t.Fatalf("generator busy 95%%: %+v", v)
	}
	wantWords(t, v, "kept 95% of the cores it could use busy")
}

func TestOpenLoopCeilingIsTheLastResort(t *testing.T) {
	s := server200(100).run()
	s.P99 = 1.5
	v := judge(t, s)
	if v.State != PastCapacity {
		t.Fatalf("p99 1.5 s with the rate kept: %+v", v)
	}
	wantWords(t, v, "above the 1 s ceiling", "last resort")
}

// Without a timeline (an older summary, or a run by request count) the unsent sends
// still show a shortfall.
func TestOpenLoopWithoutTimelineUsesUnsent(t *testing.T) {
	s := server200(400).run()
	s.Timeline = nil
	v := judge(t, s)
	if v.State != PastCapacity || !v.Shortfall || v.Backlog {
		t.Fatalf("no timeline, half the sends unsent: %+v", v)
	}
	s = server200(100).run()
	s.Timeline = nil
	if v := judge(t, s); v.State != OK {
		t.Fatalf("no timeline, every send sent: %+v", v)
	}
}

// closedLoop is a synthetic closed loop: conns clients against a pool of pool
// connections, each request holding one for service. Throughput is pool/service, and
// each request waits (conns-pool)/pool services for a connection.
func closedLoop(conns, pool int, service time.Duration) Summary {
	const window = 1.5
	x := float64(pool) / service.Seconds()
	latency := float64(conns) / x
	s := Summary{Mode: Closed, Connections: conns, Window: window, Elapsed: window + latency, GeneratorBusy: 0.1, P99: latency * 1.2}
	per := int64(x * window / loadgen.TimelineBuckets)
	for range loadgen.TimelineBuckets {
		s.Timeline = append(s.Timeline, Bucket{Completed: per, Responses: per, Latency: latency, Service: latency})
	}
	s.Tail = Bucket{Completed: int64(conns), Responses: int64(conns), Latency: latency, Service: latency}
	s.Completed = per*loadgen.TimelineBuckets + int64(conns)
	wait := latency - service.Seconds()
	s.Causes = Causes{PoolCounted: true, PoolWaitSeconds: wait * float64(s.Completed)}
	return s
}

func TestClosedLoopPoolWaitsDominating(t *testing.T) {
	v := judge(t, closedLoop(64, 8, 2*time.Millisecond))
	if v.State != Queueing || math.Abs(v.PoolWait-56.0/64) > 0.01 {
		t.Fatalf("64 clients on a pool of 8: %+v", v)
	}
	wantWords(t, v, "88% of their time waiting for a database connection", "4000 req/s is the throughput with 64 clients")

	v = judge(t, closedLoop(64, 64, 2*time.Millisecond))
	if v.State != OK || v.PoolWait != 0 {
		t.Fatalf("a pool as large as the clients: %+v", v)
	}
	wantWords(t, v, "0% of their time waiting")
}

func TestClosedLoopServerQueue(t *testing.T) {
	s := closedLoop(64, 8, 2*time.Millisecond)
	s.Causes = Causes{QueueSampled: true, QueueName: "the php-fpm listen queue", QueueMean: 56}
	v := judge(t, s)
	if v.State != Queueing || v.PoolWait != -1 || math.Abs(v.Queue-56.0/64) > 0.01 {
		t.Fatalf("56 of 64 in the listen queue: %+v", v)
	}
	wantWords(t, v, "on average 56.0 requests, 88% of those in flight, waited in the php-fpm listen queue")
}

func TestClosedLoopCeilingAndGenerator(t *testing.T) {
	s := closedLoop(16, 16, time.Millisecond)
	s.Causes = Causes{}
	s.P99 = 1.2
	v := judge(t, s)
	if v.State != Queueing {
		t.Fatalf("p99 1.2 s, no queue measured: %+v", v)
	}
	wantWords(t, v, "above the 1 s ceiling", "no queue was measured")

	s.Causes = Causes{PoolCounted: true, PoolWaitSeconds: 0.01}
	v = judge(t, s)
	wantWords(t, v, "no queue explains it: requests spent <0.1% of their time waiting")

	s.P99, s.GeneratorBusy = 0.002, 0.93
	v = judge(t, s)
	if v.State != GeneratorBehind {
		t.Fatalf("generator busy 93%%: %+v", v)
	}
	wantWords(t, v, "kept 93% of the cores it could use busy", "the generator's limit")
}

func TestNothingToJudge(t *testing.T) {
	if v := Judge(Summary{Mode: Open, Offered: 400}); v.State != OK || !strings.Contains(v.Reason, "nothing to judge") {
		t.Fatalf("%+v", v)
	}
}

// A report judges again from results.json: the stored summary gives the same verdict.
func TestSummaryJSONJudgesTheSame(t *testing.T) {
	for _, s := range []Summary{server200(400).run(), closedLoop(64, 8, 2*time.Millisecond)} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var back Summary
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if a, b := Judge(s), Judge(back); !reflect.DeepEqual(a, b) {
			t.Fatalf("verdict changed through JSON:\n%+v\n%+v", a, b)
		}
	}
	b, _ := json.Marshal(closedLoop(64, 8, time.Millisecond))
	for _, key := range []string{`"mode":"closed"`, `"window_seconds":1.5`, `"timeline":[`, `"latency_mean":`, `"pool_wait_seconds":`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON %s lacks %s", b, key)
		}
	}
}

func TestCombine(t *testing.T) {
	ok := Verdict{State: OK, Reason: "fine"}
	past := Verdict{State: PastCapacity, Reason: "short"}
	gen := Verdict{State: GeneratorBehind, Reason: "slow generator"}
	if v := Combine([]Verdict{ok, ok}); v.State != OK || v.Reason != "fine" {
		t.Fatalf("none marked: %+v", v)
	}
	if v := Combine([]Verdict{ok, past, ok}); v.State != PastCapacity || v.Reason != "in 1 of 3 slices: short" {
		t.Fatalf("one marked: %+v", v)
	}
	if v := Combine([]Verdict{past, gen, ok}); v.State != GeneratorBehind || v.Reason != "in 1 of 3 slices (1 more marked otherwise): slow generator" {
		t.Fatalf("a tie goes to the more severe: %+v", v)
	}
	if v := Combine([]Verdict{past, gen, past}); v.State != PastCapacity {
		t.Fatalf("the most frequent wins: %+v", v)
	}
	if v := Combine(nil); v.State != OK {
		t.Fatalf("no repetitions: %+v", v)
	}
}

func TestWords(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{secs(0.000085), "85 µs"}, {secs(0.0123), "12.3 ms"}, {secs(0.711), "711 ms"}, {secs(1.2), "1.2 s"},
		{rate(187.6), "188"}, {rate(2.5), "2.5"},
	} {
		if tc.got != tc.want {
			t.Errorf("%q, want %q", tc.got, tc.want)
		}
	}
}
