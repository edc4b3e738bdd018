package poolsize

import (
	"strings"
	"testing"
	"time"

	"dbbench/runners/results"
)

// A Go variant measured on loopback: its hold is the proxy-timed wait of its one round
// trip. At 1 ms away the hold grows by 1 ms per round trip, and the pool follows.
func TestHoldMovesWithTheDistance(t *testing.T) {
	v := &results.Variant{Lang: "go", Server: "nethttp", Roundtrips: &results.Roundtrips{
		Requests: 100, Wire: map[string]float64{"Query": 1},
		ZeroLoad: &results.ZeroLoad{Requests: 100, Latency: 400e-6, LatencyLo: 390e-6, LatencyHi: 410e-6, LatencyP99: 700e-6,
			DBWait: 150e-6, DBWaitLo: 145e-6, DBWaitHi: 155e-6}}}
	h, ok := Of(v, 50e-6)
	if !ok || h.Seconds != 150e-6 || h.RoundTrips != 1 || h.Resource != "connection" {
		t.Fatalf("Of = %+v, %v", h, ok)
	}
	far := h.At(time.Millisecond)
	if d := far.Seconds - (150e-6 + 950e-6); d > 1e-12 || d < -1e-12 {
		t.Errorf("hold at 1 ms = %g, want 1.1 ms (+1 round trip × 0.95 ms more)", far.Seconds)
	}
	need := Need{Rate: 1500, P99: 50 * time.Millisecond, RTT: time.Millisecond, Instances: 4, MaxConnections: 151}
	a := Size(h, need)
	// 1500 req/s × 1.1 ms = 1.65 Erlangs: at least 2, and 2 keep the wait in budget?
	if a.Pool < 2 || a.Capacity < 1500 || a.CapLo > a.Capacity || a.CapHi < a.Capacity {
		t.Fatalf("Size = %+v", a)
	}
	s := a.Sentence("Go database/sql")
	for _, want := range []string{"the smallest pool that holds is **", "1500 req/s per app instance", "1ms to the database",
		"SetMaxOpenConns", "SetMaxIdleConns", "SetConnMaxLifetime", "max_connections 151"} {
		if !strings.Contains(s, want) {
			t.Errorf("sentence lacks %q:\n%s", want, s)
		}
	}
	// On loopback at a low rate the model needs one connection: two are advised, with why.
	near := Size(h, Need{Rate: 100, P99: 50 * time.Millisecond, Instances: 1, MaxConnections: 151})
	if near.Model != 1 || near.Pool != 2 || !strings.Contains(near.Sentence("Go"), "single slow query") {
		t.Errorf("a pool of 1: %+v\n%s", near, near.Sentence("Go"))
	}
}

// A PHP request holds its child for its whole latency; a target the request alone
// misses has no pool, and says why.
func TestPHPAndNoPool(t *testing.T) {
	v := &results.Variant{Lang: "php", Server: "fpm", Roundtrips: &results.Roundtrips{
		Requests: 100, Wire: map[string]float64{"Query": 1, "Ping": 1},
		ZeroLoad: &results.ZeroLoad{Requests: 100, Latency: 2e-3, LatencyLo: 1.9e-3, LatencyHi: 2.1e-3, LatencyP99: 4e-3}}}
	h, _ := Of(v, 50e-6)
	if h.Resource != "php-fpm child" || h.RoundTrips != 2 {
		t.Fatalf("Of = %+v", h)
	}
	a := Size(h, Need{Rate: 1000, P99: 50 * time.Millisecond, RTT: 500 * time.Microsecond, Instances: 4, MaxConnections: 151})
	if a.Pool < 3 || !strings.Contains(a.Sentence("PHP"), "pm.max_children = ") {
		t.Errorf("1000 req/s × 3 ms: pool %d\n%s", a.Pool, a.Sentence("PHP"))
	}
	none := Size(h, Need{Rate: 1000, P99: 3 * time.Millisecond, Instances: 1, MaxConnections: 151})
	if none.Pool != 0 || !strings.Contains(none.Sentence("PHP"), "no pool holds") {
		t.Errorf("a target under a request's own p99: %+v", none)
	}
}
