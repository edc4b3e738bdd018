package poolsize

import (
	"math"
	"slices"

	"dbbench/runners/results"
)

// CPU is what one request costs the processors, in CPU seconds, by role.
type CPU struct {
	App float64 `json:"app"` // the target: the Go process, or nginx with its php-fpm children or workers
	DB  float64 `json:"db"`  // the database server
	// Other is what else shares the app's host where it was measured: the load
	// generator and a delay proxy. It counts on this machine, never in production.
	Other float64 `json:"other"`
}

// Known is whether the run measured the CPU at all.
func (c CPU) Known() bool { return c.App > 0 }

// CPUOf is a variant's CPU per request: the median of its repetitions, by role. A role
// the run could not measure (a database on another host) counts as nothing.
func CPUOf(v *results.Variant) CPU {
	med := func(f func(*results.Repetition) float64) float64 {
		var xs []float64
		for _, r := range v.Reps {
			if x := f(r); x > 0 {
				xs = append(xs, x)
			}
		}
		if len(xs) == 0 {
			return 0
		}
		slices.Sort(xs)
		return xs[len(xs)/2]
	}
	return CPU{
		App:   med(func(r *results.Repetition) float64 { return r.AppCPU }),
		DB:    med(func(r *results.Repetition) float64 { return r.DBCPU }),
		Other: med(func(r *results.Repetition) float64 { return r.GenCPU }),
	}
}

// Hosts is where the roles run and how many cores each has. Shared is this machine:
// every role (app, database, load generator, delay proxy) on one host of AppCores.
// Otherwise the app has a host of AppCores and the database one of DBCores, as in
// production, and Other costs nothing. Zero cores: the CPU is not modelled.
type Hosts struct {
	Shared            bool
	AppCores, DBCores int
}

// Modelled is whether the hosts are known.
func (h Hosts) Modelled() bool { return h.AppCores > 0 && (h.Shared || h.DBCores > 0) }

// Use is each host's utilisation at a rate: the share of its cores busy, from the CPU
// per request. On a shared host both are the one host's.
func (h Hosts) Use(c CPU, rate float64) (app, db float64) {
	if !h.Modelled() {
		return 0, 0
	}
	if h.Shared {
		u := rate * (c.App + c.DB + c.Other) / float64(h.AppCores)
		return u, u
	}
	return rate * c.App / float64(h.AppCores), rate * c.DB / float64(h.DBCores)
}

// stretch is how much longer a burst of CPU work takes on a host of k cores at
// utilisation u than alone: the residence time of an M/M/k station approximated as
// D/(1−u^k), exact for one core (Menascé, Almeida and Dowdy, Performance by Design,
// 2004, §15.3). +Inf at or past saturation.
func stretch(u float64, k int) float64 {
	if u >= 1 {
		return math.Inf(1)
	}
	return 1 / (1 - math.Pow(u, float64(max(k, 1))))
}

// Model is one family's pool on given hosts, at the need's distance and target: the
// G/G/c queue of queue.go (M/M/c corrected for regular arrivals and holds) with
// a hold that is not fixed but grows with the hosts' CPU contention. A request's hold
// is its round trips on the wire, which CPU does not touch, plus the rest (the app's
// and the database's work), which stretches as the hosts fill; the request's own p99
// alone stretches alike, and the wait a request may spend for the pool is what the
// target leaves of it. Without CPU figures or hosts it is the plain queue.
type Model struct {
	Hold     Hold // at the need's distance
	CPU      CPU
	Hosts    Hosts
	P99      float64 // the target, seconds
	Arrivals Arrivals
}

// ModelOf is h's model for n on hosts.
func ModelOf(h Hold, n Need, hosts Hosts) Model {
	return Model{Hold: h.At(n.RTT), CPU: h.CPU, Hosts: hosts, P99: n.P99.Seconds(), Arrivals: n.Arrivals}
}

// at is the mean hold (from hold, one end of its interval or its mean) in a pool of c,
// and the p99 alone, at rate; ok is false past a host's cores. A hold's work stretches
// with the CPU work it competes with (seen).
func (m Model) at(c int, rate, hold float64) (s, p99 float64, ok bool) {
	f := 1.0
	if m.CPU.Known() && m.Hosts.Modelled() {
		ua, ud := m.Hosts.Use(m.CPU, rate)
		if ua >= 1 || ud >= 1 {
			return 0, 0, false
		}
		sa, sd := m.Hosts.Use(m.seen(c), rate)
		dbCores := m.Hosts.DBCores
		if m.Hosts.Shared {
			dbCores = m.Hosts.AppCores // the one host's
		}
		fa, fd := stretch(sa, m.Hosts.AppCores), stretch(sd, dbCores)
		// The work in a hold is the app's and the database's, in the shares of their CPU.
		wa := m.CPU.App / (m.CPU.App + m.CPU.DB)
		f = wa*fa + (1-wa)*fd
	}
	wire := m.wire()
	work := func(x float64) float64 { return wire + max(x-wire, 0)*f }
	return work(hold), work(m.Hold.P99), true
}

// seen is the CPU per request that a request in a pool of c competes with. A php-fpm
// child or a resident worker bounds the work in flight: requests beyond c wait in the
// listen backlog doing nothing, so a request competes with the other c-1 of c requests'
// app and database work, by the arrival theorem as Schweitzer's approximation takes it
// (Lazowska et al., Quantitative System Performance, 1984, §6.4.2), and with the load
// generator's and a proxy's whole. A Go request waiting for a connection has done its
// HTTP work already, and every request in flight competes: it sees the whole.
func (m Model) seen(c int) CPU {
	cpu := m.CPU
	if m.Hold.Resource != Connection && c >= 1 {
		others := float64(c-1) / float64(c)
		cpu.App, cpu.DB = cpu.App*others, cpu.DB*others
	}
	return cpu
}

// holds says whether a pool of c serves rate with at most Tail of requests waiting
// longer than the target leaves, the hold taken at hold.
func (m Model) holds(c int, rate, hold float64) bool {
	s, p99, ok := m.at(c, rate, hold)
	if !ok || !(s > 0) {
		return false
	}
	budget := m.P99 - p99
	return budget > 0 && WaitTailGG(c, rate, s, budget, m.variability(s)) <= Tail
}

// wire is the part of a hold CPU contention does not touch: the round trips' time on
// the wire. Through a delay proxy on a shared host only the proxy's sleep is: the rest
// of each round trip (the proxy's hop, and waking each side to read) is CPU work on the
// same cores, and it stretches with the rest of the hold's work.
func (m Model) wire() float64 {
	if m.Hosts.Shared && m.Hold.Added > 0 {
		return m.Hold.RoundTrips * min(m.Hold.Added, m.Hold.RTT)
	}
	return m.Hold.RoundTrips * m.Hold.RTT
}

// variability is (ca² + cs²)/2 of a hold of s: the arrivals' and the hold's. The round
// trips on the wire take the same time every request; the rest, the app's and the
// database's work, is taken as spread exponentially, so cs² = ((s − wire)/s)². A hold of
// one round trip and a little work is nearly constant; one of mostly work, as random as
// M/M/c assumes.
func (m Model) variability(s float64) float64 {
	work := max(s-m.wire(), 0) / s
	return (m.Arrivals.cv2() + work*work) / 2
}

// Capacity is the highest rate a pool of c holds, at the hold's mean and at the ends of
// its interval (the upper end of the hold gives the lower capacity).
func (m Model) Capacity(c int) (mean, lo, hi float64) {
	return m.capacityAt(c, m.Hold.Seconds), m.capacityAt(c, max(m.Hold.Hi, m.Hold.Seconds)), m.capacityAt(c, max(m.Hold.Lo, 1e-9))
}

// capacityAt finds the capacity by bisection: whether a pool holds falls with the rate.
func (m Model) capacityAt(c int, hold float64) float64 {
	if c < 1 || !(hold > 0) {
		return 0
	}
	lo, hi := 0.0, float64(c)/hold // past c/hold the queue grows without bound
	for range 60 {
		mid := (lo + hi) / 2
		if m.holds(c, mid, hold) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// MinPool is the smallest pool up to limit that holds rate at the upper end of the
// hold's interval, so that it holds whatever the hold truly is within it; 0 when none.
func (m Model) MinPool(rate float64, limit int) int {
	hold := max(m.Hold.Hi, m.Hold.Seconds)
	if !m.holds(limit, rate, hold) {
		return 0
	}
	lo, hi := 0, limit // holds(hi); a larger pool never holds less
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if m.holds(mid, rate, hold) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// Busy is a pool of c's utilisation at rate: the share of its connections (children,
// workers) held on average, with the hold stretched by the hosts' CPU at that rate.
func (m Model) Busy(c int, rate float64) float64 {
	s, _, ok := m.at(c, rate, m.Hold.Seconds)
	if !ok || c < 1 {
		return math.Inf(1)
	}
	return rate * s / float64(c)
}
