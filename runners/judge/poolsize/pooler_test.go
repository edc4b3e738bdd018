package poolsize

import (
	"testing"
	"time"

	"dbbench/runners/results"
)

// A pooler's pool is sized for every instance's rate together, on the time each
// request's commands waited for their answers, and only it counts against
// max_connections: Little's law puts 4000 req/s of 200 µs at 0.8 server connections
// busy, so two hold it within the headroom, and 40 000 req/s (8 busy) need at least 12
// to stay within 70% busy; 4000 req/s of 1 ms (4 busy), 6.
func TestThroughPoolerSizesTheServersConnectionsForEveryInstance(t *testing.T) {
	v := &results.Variant{Roundtrips: &results.Roundtrips{ZeroLoad: &results.ZeroLoad{
		DBWait: 200e-6, DBWaitLo: 190e-6, DBWaitHi: 210e-6, LatencyP99: 1e-3}}}
	need := Need{Rate: 1000, P99: 50 * time.Millisecond, RTT: 500 * time.Microsecond, Instances: 4, MaxConnections: 100, Current: 64}
	a, ok := ThroughPooler(v, need)
	if !ok || a.Hold.Resource != ServerConnection || a.Need.Rate != 4000 || a.Upper != 100 {
		t.Fatalf("ThroughPooler = %+v, %v: want the server's connections at 4000 req/s, all of max_connections", a, ok)
	}
	if got := advised(a); got != 2 {
		t.Errorf("4000 req/s of 200 µs: %d server connections, want 2", got)
	}
	need.Rate = 10000
	if a, _ := ThroughPooler(v, need); advised(a) < 12 {
		t.Errorf("40000 req/s of 200 µs (8 busy): %d server connections, want at least 12 (≤ 70%% busy)", advised(a))
	}
	need.Rate = 1000
	v.Roundtrips.ZeroLoad.DBWait, v.Roundtrips.ZeroLoad.DBWaitLo, v.Roundtrips.ZeroLoad.DBWaitHi = 1e-3, 0.95e-3, 1.05e-3
	if a, _ := ThroughPooler(v, need); advised(a) != 6 {
		t.Errorf("4000 req/s of 1 ms (4 busy): %d server connections, want 6 (≤ 70%% busy)", advised(a))
	}
	if _, ok := ThroughPooler(&results.Variant{}, need); ok {
		t.Error("a variant without a zero-load count was sized")
	}
}

func advised(a Advice) int { return max(a.Pool, a.Recommended) }
