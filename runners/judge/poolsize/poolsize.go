// Package poolsize answers "how large a pool?" from what a run measures exactly: the
// time a request holds its pooled resource (a database connection in Go, a php-fpm child
// or a resident worker in PHP) with no other request in the way, and the round trips
// to the database each request makes, and the CPU each request costs the app and the
// database. Moved to a production distance, the hold grows by one round-trip time per
// round trip; near a host's capacity its CPU work stretches too (cpu.go). An M/M/c queue
// (Erlang C, runners/stats) on that hold then gives the smallest pool that keeps a
// request's wait for it within the p99 target.
//
// The same model predicts this machine (every role sharing its cores, Hosts.Shared),
// which `dbbench run` checks by measurement (runners/sweep/check.go) and `dbbench sweep
// pool` measures point by point, and sizes production's hosts (--app-cores, --db-cores).
package poolsize

import (
	"dbbench/runners/units"
	"fmt"
	"time"

	"dbbench/runners/results"
)

// Tail is the share of requests the model lets wait longer than the budget: the
// target is a p99.
const Tail = 0.01

// Limit is the largest pool the model considers.
const Limit = 1024

// Need is what a team sizes a pool for.
type Need struct {
	Rate           float64       `json:"rate"`            // peak requests per second, per app instance
	P99            time.Duration `json:"p99_ns"`          // the latency target
	RTT            time.Duration `json:"rtt_ns"`          // round trip from the app to the database in production
	Instances      int           `json:"instances"`       // app instances sharing the database
	MaxConnections int           `json:"max_connections"` // the database server's
	// AppCores and DBCores are production's hosts: the app instance's and the
	// database's cores. Zero: not modelled.
	AppCores int `json:"app_cores"`
	DBCores  int `json:"db_cores"`
	// Current is the pool the user runs today, to say what it does at the rate; 0: none given.
	Current int `json:"current,omitempty"`
	// AppMemory is the memory of an app instance's host, bytes: what bounds how many
	// php-fpm children or workers it runs. 0: not given.
	AppMemory int64 `json:"app_memory_bytes,omitempty"`
	// Arrivals is how the rate arrives: at random in production (the zero value), evenly
	// spaced from dbbench's own generator when the model predicts a measurement here.
	Arrivals Arrivals `json:"arrivals"`
}

// Arrivals is the pattern of the gaps between requests, which sets how long a queue
// grows at a given rate (WaitTailGG).
type Arrivals int

const (
	// Random is independent clients, gaps spread exponentially (Poisson): production's
	// traffic, and the model's answer for it.
	Random Arrivals = iota
	// Even is one request every 1/rate per connection, staggered across connections, as
	// dbbench's open-loop generator sends (runners/measure/loadgen): the sweep's and the check's.
	Even
)

// MarshalText names the pattern in JSON: random or even.
func (a Arrivals) MarshalText() ([]byte, error) {
	if a == Even {
		return []byte("even"), nil
	}
	return []byte("random"), nil
}

// UnmarshalText reads what MarshalText writes.
func (a *Arrivals) UnmarshalText(b []byte) error {
	switch string(b) {
	case "even":
		*a = Even
	case "random":
		*a = Random
	default:
		return fmt.Errorf("arrivals %q: want random or even", b)
	}
	return nil
}

// cv2 is the squared coefficient of variation of the gaps between arrivals.
func (a Arrivals) cv2() float64 {
	if a == Even {
		return 0
	}
	return 1
}

// Hosts is production's layout: the app and the database on hosts of their own.
func (n Need) Hosts() Hosts { return Hosts{AppCores: n.AppCores, DBCores: n.DBCores} }

// Here is n as dbbench measures it on this machine, to predict a sweep's or a check's
// measurement: every role sharing the machine's cores, the requests evenly spaced by
// dbbench's generator.
func (n Need) Here(cores int) (Need, Hosts) {
	n.Arrivals = Even
	return n, Hosts{Shared: true, AppCores: cores}
}

// NeedOf reads a run's stored need; ok is false when the run has none.
func NeedOf(n *results.PoolNeed) (Need, bool) {
	if n == nil {
		return Need{}, false
	}
	return Need{Rate: n.Rate, P99: n.P99.D(), RTT: n.RTT.D(), Instances: n.Instances, MaxConnections: n.MaxConnections,
		AppCores: n.AppCores, DBCores: n.DBCores, Current: n.Current, AppMemory: n.AppMemory}, true
}

// Stored is the need as results keeps it.
func (n Need) Stored() *results.PoolNeed {
	return &results.PoolNeed{Rate: n.Rate, P99: results.Duration(n.P99), RTT: results.Duration(n.RTT), Instances: n.Instances, MaxConnections: n.MaxConnections,
		AppCores: n.AppCores, DBCores: n.DBCores, Current: n.Current, AppMemory: n.AppMemory}
}

// Resource is what a pool is made of, and what a request holds: its value is the word
// the report prints.
type Resource string

const (
	Connection Resource = "connection"    // a Go database/sql connection
	FPMChild   Resource = "php-fpm child" // one PHP request at a time, its PDO connection kept
	Worker     Resource = "worker"        // a resident PHP worker, likewise
)

// Hold is what one request costs a pooled resource, measured alone.
type Hold struct {
	Seconds float64 `json:"seconds"` // mean hold per request with its 95% interval
	Lo      float64 `json:"lo"`
	Hi      float64 `json:"hi"`
	P99     float64 `json:"p99"` // the p99 of a request alone (its latency)
	RTT     float64 `json:"rtt"` // the round-trip time it was measured at
	// Added is the part of RTT a delay proxy added by sleeping (results.Link.Added); 0
	// when none did.
	Added      float64  `json:"added,omitempty"`
	RoundTrips float64  `json:"round_trips"` // per request: each adds one round-trip time to the hold
	Resource   Resource `json:"resource"`    // what is held
	// InTarget: the hold was timed in the target: a Go connection's from checkout to
	// return (go/held), a php-fpm child's from accepting the request to its end (its
	// status page); false: at the counting proxy (Go) or a PHP request's whole latency
	// (workers, and php-fpm where the run did not time it).
	InTarget bool `json:"in_target"`
	CPU      CPU  `json:"cpu_per_request"` // measured under load (not alone)
	// Memory is what each php-fpm child or worker keeps for itself (its private
	// memory, results.WorkerMemory), bytes; 0 for a connection or when not measured.
	Memory int64 `json:"memory_bytes,omitempty"`
}

// Of is the hold of a variant measured by its round-trip count: a Go request holds its
// connection from the pool's handing it over to its return (timed in the target; where
// the run did not time it there, the time its commands waited at the counting proxy,
// which leaves out the app's work in between); a PHP request holds its child or worker
// for all of its latency. link is the round trip the count was measured at (the run's
// Link.Path); ok is false without a measurement.
func Of(v *results.Variant, link *results.Link) (Hold, bool) {
	rt := v.Roundtrips
	if rt == nil || rt.ZeroLoad == nil {
		return Hold{}, false
	}
	z := rt.ZeroLoad
	_, trips := rt.Commands()
	h := Hold{P99: z.LatencyP99, RoundTrips: trips, CPU: CPUOf(v)}
	if link != nil {
		h.RTT, h.Added = link.Path, link.Added
	}
	if m := v.WorkerMemory; m != nil && v.Lang == "php" {
		h.Memory = m.Private
	}
	switch {
	case v.Lang == "go" && z.Held > 0:
		h.Seconds, h.Lo, h.Hi, h.Resource, h.InTarget = z.Held, z.HeldLo, z.HeldHi, Connection, true
	case v.Lang == "go":
		h.Seconds, h.Lo, h.Hi, h.Resource = z.DBWait, z.DBWaitLo, z.DBWaitHi, Connection
	case v.Server == "fpm" && z.Held > 0:
		h.Seconds, h.Lo, h.Hi, h.Resource, h.InTarget = z.Held, z.HeldLo, z.HeldHi, FPMChild, true
	case v.Server == "worker":
		h.Seconds, h.Lo, h.Hi, h.Resource = z.Latency, z.LatencyLo, z.LatencyHi, Worker
	default:
		h.Seconds, h.Lo, h.Hi, h.Resource = z.Latency, z.LatencyLo, z.LatencyHi, FPMChild
	}
	return h, h.Seconds > 0
}

// At is the hold moved to another round-trip time: every round trip pays the difference.
func (h Hold) At(rtt time.Duration) Hold {
	d := h.RoundTrips * (rtt.Seconds() - h.RTT)
	h.Seconds, h.Lo, h.Hi, h.P99 = h.Seconds+d, h.Lo+d, h.Hi+d, h.P99+d
	if h.Added > 0 { // a proxy adds the difference
		h.Added = max(h.Added+rtt.Seconds()-h.RTT, 0)
	}
	h.RTT = rtt.Seconds()
	return h
}

// Headroom is the utilisation a recommended pool and host stay within at the rate:
// room for a surge of 1/0.7 = 1.43× before either is full.
const Headroom = 0.7

// Advice is the pool one family needs on production's hosts.
type Advice struct {
	Need Need `json:"need"`
	Hold Hold `json:"hold"` // at Need.RTT
	// Budget is how long a request may wait for the resource: the p99 target less a
	// request's own p99 alone at that distance. None when it is not positive.
	Budget float64 `json:"budget_seconds"`
	// Pool is the smallest pool that holds the rate with the hold's upper bound (at
	// least 2); Model is the model's own answer before that floor. Recommended is the
	// smallest pool that also keeps its own utilisation within Headroom; Upper the most
	// each instance may open, max_connections ÷ instances.
	Pool        int `json:"pool"`
	Model       int `json:"model"`
	Recommended int `json:"recommended"`
	Upper       int `json:"upper"`
	// Capacity of Pool at the target, req/s, at the mean hold, with the interval the
	// hold's interval gives.
	Capacity float64 `json:"capacity"`
	CapLo    float64 `json:"capacity_lo"`
	CapHi    float64 `json:"capacity_hi"`
	// AppUse and DBUse are the hosts' CPU utilisations at the rate (0: not modelled).
	AppUse float64 `json:"app_use"`
	DBUse  float64 `json:"db_use"`
	// MemoryBound is how many php-fpm children or workers of the hold's private memory
	// the app host's memory holds, before anything they share; 0: not known.
	MemoryBound int    `json:"memory_bound,omitempty"`
	Why         string `json:"why,omitempty"` // when no pool holds
}

// Size gives the pool h needs for n on production's hosts (n.Hosts).
func Size(h Hold, n Need) Advice {
	return SizeOn(h, n, n.Hosts())
}

// SizeOn gives the pool h needs for n on the given hosts: production's, or this
// machine's to predict what a check here will measure.
func SizeOn(h Hold, n Need, hosts Hosts) Advice {
	m := ModelOf(h, n, hosts)
	a := Advice{Need: n, Hold: m.Hold, Upper: n.MaxConnections / max(1, n.Instances)}
	if h.Memory > 0 && n.AppMemory > 0 {
		a.MemoryBound = int(n.AppMemory / h.Memory)
	}
	if m.CPU.Known() {
		a.AppUse, a.DBUse = hosts.Use(m.CPU, n.Rate)
	}
	a.Budget = n.P99.Seconds() - a.Hold.P99
	switch {
	case a.Budget <= 0:
		a.Why = fmt.Sprintf("a request alone already takes %s at p99 there, over the %v target", units.Seconds(a.Hold.P99), n.P99)
		return a
	case n.Rate <= 0:
		a.Why = "no rate to size for"
		return a
	case a.AppUse >= 1 || a.DBUse >= 1:
		a.Why = fmt.Sprintf("the CPU is short: %.0f req/s would need %.0f%% of the app host's cores and %.0f%% of the database's", n.Rate, 100*a.AppUse, 100*a.DBUse)
		return a
	}
	a.Model = m.MinPool(n.Rate, Limit)
	if a.Model == 0 {
		a.Why = fmt.Sprintf("no pool up to %d holds %.0f req/s", Limit, n.Rate)
		return a
	}
	a.Pool = max(2, a.Model)
	a.Capacity, a.CapLo, a.CapHi = m.Capacity(a.Pool)
	a.Recommended = a.Pool
	for a.Recommended < Limit && m.Busy(a.Recommended, n.Rate) > Headroom {
		a.Recommended++
	}
	return a
}

// CapacityOf is the model's capacity of a pool of c at the target and distance of n on
// hosts, with the interval of the hold: what the pool sweep prints beside its
// measurement.
func CapacityOf(h Hold, c int, n Need, hosts Hosts) (mean, lo, hi float64) {
	return ModelOf(h, n, hosts).Capacity(c)
}

// Verdict is what a pool of c does at the need's rate: it holds (within the target),
// holds with less headroom than recommended, queues (requests wait past it), or its
// instances together open more connections than the server allows.
func (a Advice) Verdict(c int) string {
	if c*max(1, a.Need.Instances) > a.Need.MaxConnections && a.Need.MaxConnections > 0 {
		return "exceeds max_connections"
	}
	switch {
	case a.Model > 0 && c >= max(a.Model, a.Recommended):
		return "holds"
	case a.Model > 0 && c >= a.Model:
		return fmt.Sprintf("holds, over %.0f%% busy", 100*Headroom)
	}
	return "queues"
}

// Total is the connections every instance's pool holds together, and whether the
// server allows them.
func (a Advice) Total() (int, bool) {
	t := a.Pool * max(1, a.Need.Instances)
	return t, a.Need.MaxConnections <= 0 || t <= a.Need.MaxConnections
}

// CommonStmt is the stmt mode most of a family's variants share, in their order the
// first to reach that count: the mode the fourth answer names and its check measures.
func CommonStmt(stmts []string) string {
	count := map[string]int{}
	best := ""
	for _, s := range stmts {
		count[s]++
		if count[s] > count[best] {
			best = s
		}
	}
	return best
}
