// Package poolsize answers "how large a pool?" from what a run measures exactly: the
// time a request holds its pooled resource (a database connection in Go, a php-fpm child
// or a resident worker in PHP) with no other request in the way, and the round trips
// to the database each request makes. Moved to a production distance, the hold grows by
// one round-trip time per round trip; an M/M/c queue (Erlang C, runners/stats) then
// gives the smallest pool that keeps a request's wait for it within the p99 target.
//
// The model sizes the pool, not the host: it assumes the app and the database have the
// CPU to serve the rate. `dbbench sweep pool` measures both at once, and prints the
// model's capacity beside the measured one (README.md, "How large a pool?").
package poolsize

import (
	"dbbench/runners/units"
	"fmt"
	"time"

	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// Tail is the share of requests the model lets wait longer than the budget: the
// target is a p99.
const Tail = 0.01

// Limit is the largest pool the model considers.
const Limit = 1024

// Need is what a team sizes a pool for.
type Need struct {
	Rate           float64       // peak requests per second, per app instance
	P99            time.Duration // the latency target
	RTT            time.Duration // round trip from the app to the database in production
	Instances      int           // app instances sharing the database
	MaxConnections int           // the database server's
}

// NeedOf reads a run's stored need; ok is false when the run has none or it does not parse.
func NeedOf(n *results.PoolNeed) (Need, bool) {
	if n == nil {
		return Need{}, false
	}
	p99, err1 := time.ParseDuration(n.P99)
	rtt, err2 := time.ParseDuration(n.RTT)
	if err1 != nil || err2 != nil {
		return Need{}, false
	}
	return Need{Rate: n.Rate, P99: p99, RTT: rtt, Instances: n.Instances, MaxConnections: n.MaxConnections}, true
}

// Stored is the need as results keeps it.
func (n Need) Stored() *results.PoolNeed {
	return &results.PoolNeed{Rate: n.Rate, P99: n.P99.String(), RTT: n.RTT.String(), Instances: n.Instances, MaxConnections: n.MaxConnections}
}

// Hold is what one request costs a pooled resource, measured alone.
type Hold struct {
	Seconds, Lo, Hi float64 // mean hold per request with its 95% interval
	P99             float64 // the p99 of a request alone (its latency)
	RTT             float64 // the round-trip time it was measured at
	RoundTrips      float64 // per request: each adds one round-trip time to the hold
	Resource        string  // what is held: "connection", "php-fpm child", "worker"
}

// Of is the hold of a variant measured by its round-trip count: a Go request holds its
// connection while its commands wait on the database (timed at the counting proxy); a
// PHP request holds its child or worker for all of its latency. link is the round trip
// the count was measured at (the run's Link.Path); ok is false without a measurement.
func Of(v *results.Variant, link float64) (Hold, bool) {
	rt := v.Roundtrips
	if rt == nil || rt.ZeroLoad == nil {
		return Hold{}, false
	}
	z := rt.ZeroLoad
	_, trips := rt.Commands()
	h := Hold{P99: z.LatencyP99, RTT: link, RoundTrips: trips}
	switch {
	case v.Lang == "go":
		h.Seconds, h.Lo, h.Hi, h.Resource = z.DBWait, z.DBWaitLo, z.DBWaitHi, "connection"
	case v.Server == "worker":
		h.Seconds, h.Lo, h.Hi, h.Resource = z.Latency, z.LatencyLo, z.LatencyHi, "worker"
	default:
		h.Seconds, h.Lo, h.Hi, h.Resource = z.Latency, z.LatencyLo, z.LatencyHi, "php-fpm child"
	}
	return h, h.Seconds > 0
}

// At is the hold moved to another round-trip time: every round trip pays the difference.
func (h Hold) At(rtt time.Duration) Hold {
	d := h.RoundTrips * (rtt.Seconds() - h.RTT)
	h.Seconds, h.Lo, h.Hi, h.P99 = h.Seconds+d, h.Lo+d, h.Hi+d, h.P99+d
	h.RTT = rtt.Seconds()
	return h
}

// Advice is the pool one family needs.
type Advice struct {
	Need Need
	Hold Hold // at Need.RTT
	// Budget is how long a request may wait for the resource: the p99 target less a
	// request's own p99 alone at that distance. None when it is not positive.
	Budget float64
	// Pool is the smallest pool that holds the rate with the hold's upper bound; Model
	// is the model's own answer before the floor of 2.
	Pool, Model int
	// Capacity of Pool at the target, req/s, at the mean hold, with the interval the
	// hold's interval gives.
	Capacity, CapLo, CapHi float64
	Why                    string // when no pool holds
}

// Size gives the pool h needs for n.
func Size(h Hold, n Need) Advice {
	a := Advice{Need: n, Hold: h.At(n.RTT)}
	a.Budget = n.P99.Seconds() - a.Hold.P99
	switch {
	case a.Budget <= 0:
		a.Why = fmt.Sprintf("a request alone already takes %s at p99 there, over the %v target", units.Seconds(a.Hold.P99), n.P99)
		return a
	case n.Rate <= 0:
		a.Why = "no rate to size for"
		return a
	}
	// The upper end of the hold's interval: a pool sized on it holds whatever the hold
	// truly is within the interval.
	a.Model = stats.MinServers(n.Rate, max(a.Hold.Hi, a.Hold.Seconds), a.Budget, Tail, Limit)
	if a.Model == 0 {
		a.Why = fmt.Sprintf("no pool up to %d holds %.0f req/s", Limit, n.Rate)
		return a
	}
	a.Pool = max(2, a.Model)
	a.Capacity = stats.MaxRate(a.Pool, a.Hold.Seconds, a.Budget, Tail)
	a.CapLo = stats.MaxRate(a.Pool, max(a.Hold.Hi, a.Hold.Seconds), a.Budget, Tail)
	a.CapHi = stats.MaxRate(a.Pool, max(a.Hold.Lo, 1e-9), a.Budget, Tail)
	return a
}

// CapacityOf is the model's capacity of a pool of c at the target and distance of n,
// with the interval of the hold: what the pool sweep prints beside its measurement.
func CapacityOf(h Hold, c int, n Need) (mean, lo, hi float64) {
	h = h.At(n.RTT)
	budget := n.P99.Seconds() - h.P99
	return stats.MaxRate(c, h.Seconds, budget, Tail),
		stats.MaxRate(c, max(h.Hi, h.Seconds), budget, Tail),
		stats.MaxRate(c, max(h.Lo, 1e-9), budget, Tail)
}

// Total is the connections every instance's pool holds together, and whether the
// server allows them.
func (a Advice) Total() (int, bool) {
	t := a.Pool * max(1, a.Need.Instances)
	return t, a.Need.MaxConnections <= 0 || t <= a.Need.MaxConnections
}
