package poolsize

import (
	"math"
	"strings"
	"testing"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/results"
)

// A Go variant measured on loopback: its hold is the proxy-timed wait of its one round
// trip. At 1 ms away the hold grows by 1 ms per round trip, and the pool follows.
func TestHoldMovesWithTheDistance(t *testing.T) {
	v := &results.Variant{
		Variant: matrix.Variant{Lang: "go", Server: "nethttp"},
		Roundtrips: &results.Roundtrips{
			Requests: 100, Wire: map[string]float64{"Query": 1},
			ZeroLoad: &results.ZeroLoad{Requests: 100, Latency: 400e-6, LatencyLo: 390e-6, LatencyHi: 410e-6, LatencyP99: 700e-6,
				DBWait: 150e-6, DBWaitLo: 145e-6, DBWaitHi: 155e-6}},
	}
	h, ok := Of(v, &results.Link{Path: 50e-6})
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

// A Go variant whose target timed its holds (go/held) is sized on them: they add the
// app's work between checkout and return to what the proxy saw, and the pool grows.
func TestAHoldTimedInTheTarget(t *testing.T) {
	z := &results.ZeroLoad{Requests: 100, Latency: 900e-6, LatencyLo: 890e-6, LatencyHi: 910e-6, LatencyP99: 1.2e-3,
		DBWait: 600e-6, DBWaitLo: 590e-6, DBWaitHi: 610e-6}
	v := &results.Variant{
		Variant: matrix.Variant{Lang: "go", Server: "nethttp"},
		Roundtrips: &results.Roundtrips{
			Requests: 100, Wire: map[string]float64{"Query": 1}, ZeroLoad: z},
	}
	proxy, _ := Of(v, &results.Link{Path: 500e-6})
	timed := *z
	timed.Held, timed.HeldLo, timed.HeldHi = 800e-6, 780e-6, 820e-6
	v.Roundtrips.ZeroLoad = &timed
	target, _ := Of(v, &results.Link{Path: 500e-6})
	if proxy.Seconds != 600e-6 || proxy.InTarget || target.Seconds != 800e-6 || target.Hi != 820e-6 || !target.InTarget {
		t.Fatalf("Of at the proxy %+v, in the target %+v", proxy, target)
	}
	if !strings.Contains(target.HowHeld(), "in the target") || !strings.Contains(proxy.HowHeld(), "counting proxy") {
		t.Errorf("HowHeld: %q / %q", target.HowHeld(), proxy.HowHeld())
	}
	need := Need{Rate: 5000, P99: 50 * time.Millisecond, RTT: 500 * time.Microsecond, Instances: 1, MaxConnections: 151}
	if a, b := Size(proxy, need), Size(target, need); b.Pool <= a.Pool {
		t.Errorf("a longer hold needs no larger pool: %d at the proxy's hold, %d at the target's", a.Pool, b.Pool)
	}
	// A php-fpm child timed by php-fpm is held for that time; a resident worker, whose
	// holds nothing times, for the request's latency.
	fpm := &results.Variant{Variant: matrix.Variant{Lang: "php", Server: "fpm"}, Roundtrips: v.Roundtrips}
	if h, _ := Of(fpm, &results.Link{Path: 500e-6}); h.Seconds != timed.Held || !h.InTarget || h.Resource != "php-fpm child" ||
		!strings.Contains(h.HowHeld(), "php-fpm") {
		t.Errorf("a php-fpm child timed by php-fpm: %+v, %q", h, h.HowHeld())
	}
	worker := &results.Variant{Variant: matrix.Variant{Lang: "php", Server: "worker"}, Roundtrips: v.Roundtrips}
	if h, _ := Of(worker, &results.Link{Path: 500e-6}); h.Seconds != timed.Latency || h.InTarget || h.HowHeld() != "for all of its latency" {
		t.Errorf("a resident worker is held for the request's latency: %+v", h)
	}
}

// A PHP request holds its child for its whole latency; a target the request alone
// misses has no pool, and says why.
func TestPHPAndNoPool(t *testing.T) {
	v := &results.Variant{
		Variant: matrix.Variant{Lang: "php", Server: "fpm"},
		Roundtrips: &results.Roundtrips{
			Requests: 100, Wire: map[string]float64{"Query": 1, "Ping": 1},
			ZeroLoad: &results.ZeroLoad{Requests: 100, Latency: 2e-3, LatencyLo: 1.9e-3, LatencyHi: 2.1e-3, LatencyP99: 4e-3}},
	}
	h, _ := Of(v, &results.Link{Path: 50e-6})
	if h.Resource != "php-fpm child" || h.RoundTrips != 2 {
		t.Fatalf("Of = %+v", h)
	}
	a := Size(h, Need{Rate: 1000, P99: 50 * time.Millisecond, RTT: 500 * time.Microsecond, Instances: 4, MaxConnections: 151})
	if a.Pool < 3 || !strings.Contains(a.Sentence("PHP"), "pm.max_children = ") {
		t.Errorf("1000 req/s × 3 ms: pool %d\n%s", a.Pool, a.Sentence("PHP"))
	}
	// What each child keeps for itself bounds how many a host holds: 4 GiB ÷ 24 MiB.
	v.WorkerMemory = &results.WorkerMemory{Private: 24 << 20, Processes: 8}
	h, _ = Of(v, &results.Link{Path: 50e-6})
	mem := Size(h, Need{Rate: 1000, P99: 50 * time.Millisecond, RTT: 500 * time.Microsecond, Instances: 4, MaxConnections: 151, AppMemory: 4 << 30})
	if mem.MemoryBound != 170 || !strings.Contains(mem.Sentence("PHP"), "Each php-fpm child keeps 24.00 MiB of its own") ||
		!strings.Contains(mem.Sentence("PHP"), "an app host of 4.00 GiB holds at most 170") {
		t.Errorf("memory bound %d:\n%s", mem.MemoryBound, mem.Sentence("PHP"))
	}
	if a.MemoryBound != 0 || strings.Contains(a.Sentence("PHP"), "of its own") {
		t.Errorf("without a measured memory: bound %d\n%s", a.MemoryBound, a.Sentence("PHP"))
	}
	none := Size(h, Need{Rate: 1000, P99: 3 * time.Millisecond, Instances: 1, MaxConnections: 151})
	if none.Pool != 0 || !strings.Contains(none.Sentence("PHP"), "no pool holds") {
		t.Errorf("a target under a request's own p99: %+v", none)
	}
}

// goHold is a Go request 1 ms from the database: one round trip on the wire and 100 µs
// of the database's work, 300 µs of CPU in all (app 150, database 50, the rest 100).
func goHold() Hold {
	return Hold{Seconds: 1.1e-3, Lo: 1.08e-3, Hi: 1.12e-3, P99: 2e-3, RTT: 1e-3, RoundTrips: 1, Resource: "connection",
		CPU: CPU{App: 150e-6, DB: 50e-6, Other: 100e-6}}
}

// On this machine's 2 shared cores the CPU fills at 2 / 300 µs = 6667 req/s: a large
// pool's capacity stops short of it, however large, while without the CPU it grows
// with the pool. At a low rate the CPU moves nothing.
func TestTheCPUCapsEveryPool(t *testing.T) {
	n := Need{Rate: 1000, P99: 50 * time.Millisecond, RTT: time.Millisecond}
	here := ModelOf(goHold(), n, Hosts{Shared: true, AppCores: 2})
	endless := ModelOf(goHold(), n, Hosts{})
	for _, c := range []int{16, 64, 256} {
		got, _, _ := here.Capacity(c)
		if got >= 6667 || got < 0.8*6667 {
			t.Errorf("pool %d on 2 shared cores: %g req/s, want under 6667 and near it", c, got)
		}
		if e, _, _ := endless.Capacity(c); e < float64(c)*0.5/1.1e-3 {
			t.Errorf("pool %d without CPU: %g req/s, want the pool's own limit", c, e)
		}
	}
	low, _, _ := here.Capacity(1)
	if e, _, _ := endless.Capacity(1); low > e || low < 0.95*e {
		t.Errorf("pool 1: %g with CPU against %g without: the CPU is 5%% busy there and should barely matter", low, e)
	}
	// Production's hosts, apart: the app's 150 µs on 2 cores, the database's 50 on 2,
	// and no load generator: far more than here.
	prod := ModelOf(goHold(), n, Hosts{AppCores: 2, DBCores: 2})
	if p, _, _ := prod.Capacity(64); p <= 6667 {
		t.Errorf("pool 64 on hosts of their own: %g req/s, want more than the shared host's 6667", p)
	}
}

// Through a delay proxy on a shared host only the proxy's sleep is distance: the rest
// of the round trip (its hop, the wake-ups) is CPU work that stretches as the cores fill,
// so near their capacity the hold is longer and the pool carries less. On production's
// hosts the whole round trip is the wire, proxy or not.
func TestAProxysHopStretchesOnlyOnASharedHost(t *testing.T) {
	n := Need{Rate: 1000, P99: 50 * time.Millisecond, RTT: time.Millisecond}
	slept := goHold()
	slept.Added = 0.7e-3 // of the 1 ms round trip, 0.3 ms is the proxy's hop
	here := Hosts{Shared: true, AppCores: 2}
	wired, _, _ := ModelOf(goHold(), n, here).Capacity(8)
	hop, _, _ := ModelOf(slept, n, here).Capacity(8)
	if !(hop < 0.97*wired) {
		t.Errorf("pool 8 here: %g req/s with the proxy's hop stretching, %g without; want clearly fewer", hop, wired)
	}
	if s, _, _ := ModelOf(slept, n, here).at(8, 100, slept.Seconds); math.Abs(s-slept.Seconds) > 0.02*slept.Seconds {
		t.Errorf("at 100 req/s the cores are idle: hold %g, want about %g", s, slept.Seconds)
	}
	prod := Hosts{AppCores: 2, DBCores: 2}
	a, _, _ := ModelOf(goHold(), n, prod).Capacity(8)
	b, _, _ := ModelOf(slept, n, prod).Capacity(8)
	if a != b {
		t.Errorf("production's hosts: %g and %g req/s; the proxy's share should not matter there", a, b)
	}
	if moved := slept.At(2 * time.Millisecond); math.Abs(moved.Added-1.7e-3) > 1e-12 {
		t.Errorf("moved to 2 ms the proxy adds %g, want 1.7 ms", moved.Added)
	}
}

// A php-fpm child works on one request at a time and the requests beyond the pool
// wait doing nothing: a pool of one child competes with no other request's work, only
// with the load generator's, while a Go request competes with every request in flight.
func TestAChildCompetesOnlyWithTheOtherChildren(t *testing.T) {
	n := Need{Rate: 300, P99: 50 * time.Millisecond, RTT: time.Millisecond}
	child := Hold{Seconds: 3e-3, Lo: 2.9e-3, Hi: 3.1e-3, P99: 4e-3, RTT: 1e-3, RoundTrips: 1, Resource: "php-fpm child",
		CPU: CPU{App: 2e-3, DB: 0.5e-3}} // no load generator: its own work only
	here := Hosts{Shared: true, AppCores: 2}
	m := ModelOf(child, n, here)
	if s, _, ok := m.at(1, 300, child.Seconds); !ok || s != child.Seconds {
		t.Errorf("one child at 300 req/s: hold %g (%v), want its own %g: nothing else competes", s, ok, child.Seconds)
	}
	if s, _, _ := m.at(8, 300, child.Seconds); !(s > child.Seconds) {
		t.Errorf("eight children at 300 req/s: hold %g, want more than %g", s, child.Seconds)
	}
	conn := child
	conn.Resource = "connection"
	if s, _, _ := ModelOf(conn, n, here).at(1, 300, conn.Seconds); !(s > conn.Seconds) {
		t.Errorf("a Go pool of one at 300 req/s: hold %g, want more than %g: requests waiting for it still work", s, conn.Seconds)
	}
}

// The advice names the smallest pool that holds, a larger one that keeps it ≤ 70% busy,
// the hosts' CPU at the rate, the upper bound, and what a present pool does.
func TestAdviceHasHeadroomAndBounds(t *testing.T) {
	n := Need{Rate: 3000, P99: 50 * time.Millisecond, RTT: time.Millisecond, Instances: 4, MaxConnections: 151, AppCores: 2, DBCores: 2}
	a := Size(goHold(), n)
	if a.Pool < 4 || a.Recommended <= a.Pool || a.Upper != 37 {
		t.Fatalf("3000 req/s × 1.1 ms = 3.3 connections busy: %+v", a)
	}
	m := ModelOf(goHold(), n, n.Hosts())
	if b := m.Busy(a.Recommended, n.Rate); b > Headroom {
		t.Errorf("recommended %d is %.2f busy, over %.2f", a.Recommended, b, Headroom)
	}
	if b := m.Busy(a.Recommended-1, n.Rate); b <= Headroom {
		t.Errorf("%d is %.2f busy already: the recommendation is not the smallest with headroom", a.Recommended-1, b)
	}
	if want := 3000 * 150e-6 / 2; math.Abs(a.AppUse-want) > 1e-12 {
		t.Errorf("app host %.3f busy, want %.3f", a.AppUse, want)
	}
	s := a.Sentence("Go")
	for _, want := range []string{"recommended", "app host's CPU is 22% busy", "more than 37 per instance"} {
		if !strings.Contains(s, want) {
			t.Errorf("sentence lacks %q:\n%s", want, s)
		}
	}
	if v := a.Verdict(a.Pool); v != "holds, over 70% busy" {
		t.Errorf("the smallest pool that holds, under the recommended: %q", v)
	}
	if v := a.Verdict(a.Recommended); v != "holds" {
		t.Errorf("the recommended pool: %q", v)
	}
	if v := a.Verdict(a.Model - 1); v != "queues" {
		t.Errorf("one below the model: %q", v)
	}
	if v := a.Verdict(40); v != "exceeds max_connections" {
		t.Errorf("4 × 40 = 160 over 151: %q", v)
	}
	// The CPU short: 20000 req/s × 150 µs is 1.5 app hosts.
	short := Size(goHold(), Need{Rate: 20000, P99: 50 * time.Millisecond, RTT: time.Millisecond, Instances: 1, MaxConnections: 151, AppCores: 2, DBCores: 2})
	if short.Pool != 0 || !strings.Contains(short.Why, "CPU is short") {
		t.Errorf("20000 req/s on 2 app cores: %+v", short)
	}
}

// A need survives results.json: its cores and present pool too.
func TestNeedRoundTrips(t *testing.T) {
	n := Need{Rate: 1000, P99: 50 * time.Millisecond, RTT: 500 * time.Microsecond, Instances: 4, MaxConnections: 151, AppCores: 8, DBCores: 16, Current: 20,
		AppMemory: 4 << 30}
	got, ok := NeedOf(n.Stored())
	if !ok || got != n {
		t.Errorf("NeedOf(Stored) = %+v, want %+v", got, n)
	}
}

// A hold that is almost all round trip is nearly constant: with requests evenly spaced
// (dbbench's generator) one child carries close to 1/hold, while at random (production)
// the same child queues far earlier; a hold of mostly work is as random either way.
func TestArrivalsAndAConstantHold(t *testing.T) {
	wire := Hold{Seconds: 3e-3, Lo: 3e-3, Hi: 3e-3, P99: 4e-3, RTT: 1.4e-3, RoundTrips: 2, Resource: "php-fpm child"}
	need := Need{Rate: 100, P99: 50 * time.Millisecond, RTT: 1400 * time.Microsecond}
	random, _, _ := CapacityOf(wire, 1, need, Hosts{})
	here, _ := need.Here(0)
	even, _, _ := CapacityOf(wire, 1, here, Hosts{})
	if even < 0.95/wire.Seconds || even >= 1/wire.Seconds {
		t.Errorf("evenly spaced: one child holds %.0f req/s, want just under 1/hold = %.0f", even, 1/wire.Seconds)
	}
	if random > 0.9*even {
		t.Errorf("at random one child holds %.0f req/s, evenly %.0f: random arrivals should queue sooner", random, even)
	}
	work := wire
	work.RoundTrips = 0 // all of the hold is work: cs² = 1
	mm, _, _ := CapacityOf(work, 1, need, Hosts{})
	mmc := 0.0
	for r := 1.0; r < 1/work.Seconds; r++ { // M/M/1 by its own formula: ρ·exp(−(μ−λ)·budget) ≤ 1%
		if r*work.Seconds*math.Exp(-(1/work.Seconds-r)*(need.P99.Seconds()-work.P99)) > Tail {
			break
		}
		mmc = r
	}
	if math.Abs(mm-mmc) > 1.5 {
		t.Errorf("a hold of all work at random arrivals: %.1f req/s, want M/M/1's %.0f", mm, mmc)
	}
}

// A run's pages say once how its holds were timed: the first Go connection's way (the
// counting proxy's when none was sized), and a php-fpm child's only when php-fpm timed it.
func TestHowTimed(t *testing.T) {
	conn := Hold{Resource: Connection, InTarget: true}
	child := Hold{Resource: FPMChild, InTarget: true}
	if c, ch := HowTimed([]Hold{child, conn}); c != conn.HowHeld() || ch != child.HowHeld() {
		t.Errorf("timed in the targets: %q, %q", c, ch)
	}
	if c, ch := HowTimed([]Hold{{Resource: FPMChild}}); !strings.Contains(c, "counting proxy") || ch != "" {
		t.Errorf("no Go hold, a child by its latency: %q, %q", c, ch)
	}
}
