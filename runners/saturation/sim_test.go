package saturation

import (
	"slices"
	"time"

	"dbbench/runners/measure/loadgen"
)

// sim is a synthetic open-loop timeline: C connections keep loadgen's schedule (one
// request at a time each, phases interval/C apart, latency from the intended send)
// against a server of known capacity, servers slots of service each, first come first
// served. It is accounted as loadgen accounts it: late sends by whose fault, sends
// still due at the window's end as unsent, completions into slices of the window.
type sim struct {
	conns   int
	rate    float64 // offered, requests per second
	window  time.Duration
	service time.Duration // per request, at one slot
	servers int           // slots working at once; capacity = servers / service
	// genLag is added to every send: a generator that cannot keep its own schedule.
	genLag time.Duration
	// The server takes no request up between stallAt and stallAt+stall.
	stallAt, stall time.Duration
	busy           float64 // the generator's busy share to report
}

// conn is one simulated connection's state.
type conn struct {
	k                   int
	next                time.Duration // when its next send goes out
	idealFree, prevDone time.Duration
	done                bool
}

func (m sim) run() Summary {
	interval := time.Duration(float64(m.conns) / m.rate * float64(time.Second))
	free := make([]time.Duration, max(m.servers, 1))
	conns := make([]*conn, m.conns)
	for i := range conns {
		conns[i] = &conn{next: m.offset(i, interval) + m.genLag}
	}
	s := Summary{Mode: Open, Connections: m.conns, Offered: m.rate, Window: m.window.Seconds(),
		GeneratorBusy: m.busy, Timeline: make([]Bucket, loadgen.TimelineBuckets)}
	var latencies []float64
	var last time.Duration
	sums := make([][2]float64, loadgen.TimelineBuckets+1) // latency and service sums; last: the tail
	for {
		c := earliest(conns)
		if c == nil {
			break
		}
		i := slices.Index(conns, c)
		intended := m.offset(i, interval) + time.Duration(c.k)*interval
		if intended >= m.window {
			c.done = true
			continue
		}
		s.Scheduled++
		sent := c.next
		if sent >= m.window { // behind schedule when the window ended
			n := int64((m.window - intended + interval - 1) / interval)
			s.Unsent += n
			s.Scheduled += n - 1
			c.done = true
			continue
		}
		lateBy := sent - intended
		if lateBy > loadgen.LateAfter {
			target := min(max(c.idealFree-intended, 0), lateBy)
			if 2*target >= lateBy {
				s.LateTarget++
			} else {
				s.LateGenerator++
			}
		}
		done := m.serve(free, sent)
		c.idealFree = max(c.idealFree, intended) + done - sent
		c.k++
		c.next = max(m.offset(i, interval)+time.Duration(c.k)*interval, done) + m.genLag
		s.Completed++
		last = max(last, done)
		latencies = append(latencies, (done - intended).Seconds())

		slot := int(done * loadgen.TimelineBuckets / m.window)
		b := &s.Tail
		if slot < loadgen.TimelineBuckets {
			b = &s.Timeline[slot]
		} else {
			slot = loadgen.TimelineBuckets
		}
		b.Completed++
		b.Responses++
		if lateBy > loadgen.LateAfter {
			b.Late++
		}
		sums[slot][0] += (done - intended).Seconds()
		sums[slot][1] += (done - sent).Seconds()
	}
	for i := range sums {
		b := &s.Tail
		if i < loadgen.TimelineBuckets {
			b = &s.Timeline[i]
		}
		if b.Responses > 0 {
			b.Latency, b.Service = sums[i][0]/float64(b.Responses), sums[i][1]/float64(b.Responses)
		}
	}
	s.Elapsed = max(m.window, last).Seconds()
	slices.Sort(latencies)
	if len(latencies) > 0 {
		s.P99 = latencies[int(0.99*float64(len(latencies)-1))]
	}
	return s
}

func (m sim) offset(i int, interval time.Duration) time.Duration {
	return time.Duration(i) * interval / time.Duration(m.conns)
}

// serve queues a request that arrives at t for the slot free first, and says when
// it is answered.
func (m sim) serve(free []time.Duration, t time.Duration) time.Duration {
	j := 0
	for i := range free {
		if free[i] < free[j] {
			j = i
		}
	}
	start := max(t, free[j])
	if m.stall > 0 && start >= m.stallAt && start < m.stallAt+m.stall {
		start = m.stallAt + m.stall
	}
	free[j] = start + m.service
	return free[j]
}

// earliest is the connection whose next send comes first; nil when all are done.
// Sends are taken in time order, so the server sees arrivals in order.
func earliest(conns []*conn) *conn {
	var best *conn
	for _, c := range conns {
		if !c.done && (best == nil || c.next < best.next) {
			best = c
		}
	}
	return best
}
