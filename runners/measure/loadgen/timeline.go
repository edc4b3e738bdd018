package loadgen

import "time"

// LateAfter is how far after its intended time an open-loop send may go out and still
// count as on time. The generator's own wake-up error is well under it (see sleepUntil;
// README.md, "Measured"), so a send 1 ms late is not jitter; and 1 ms is the scale of
// the fastest database request (README.md, "Measured"), so lateness beyond it changes
// the latency a report shows. A fraction of the interval would not do: latency is
// measured from the intended time, so what lateness costs is set against the latency,
// whatever the interval between sends.
const LateAfter = time.Millisecond

// TimelineBuckets is how many equal slices of the window the timeline has: ten give a
// saturation detector enough points for a trend (Theil–Sen needs about five) and, at
// the quick preset's window and rates, tens of requests per slice for a mean
// (README.md, "Measured").
const TimelineBuckets = 10

// Bucket is one slice of the measured window in Result.Timeline, by completion time.
type Bucket struct {
	Completed int64 // requests that finished in the slice, errors included
	Responses int64 // of those, whole responses: what Latency and Service average over
	// Latency is the mean latency of the slice's whole responses from the intended send
	// time (open loop; the actual send in closed loop), Service from the actual send. A
	// backlog that keeps growing shows as Latency rising slice after slice while
	// Service stays flat.
	Latency, Service time.Duration
	Late             int64 // of Completed, sent more than LateAfter after their intended time
}

// lateness says whether an open-loop send kept its schedule and, if not, whose fault
// it was.
type lateness uint8

const (
	onTime        lateness = iota
	lateTarget             // the connection's previous answer came after the send was due
	lateGenerator          // the connection was free, but the send still went out late
	numLateness
)

// classifyLate splits a send's lateness into the target's share and the generator's,
// and blames whichever is larger. The target's share is how late an ideal generator
// would have been: one that sends each request at its intended time or, if the
// connection (which carries one request at a time) is still waiting for an answer,
// the moment the answer comes, with the same service times as measured. idealFree is
// when the connection would have been free under that generator (zero before the first
// send). The rest is the generator's own: waking up, scheduling, its CPU.
//
// Comparing with the actual previous answer instead would blame the target for the
// generator's lateness carried over: once a generator falls behind, every answer comes
// after the next send was due, however fast the target answered.
func classifyLate(intended, idealFree, sent time.Time) lateness {
	late := sent.Sub(intended)
	if late <= LateAfter {
		return onTime
	}
	target := min(max(idealFree.Sub(intended), 0), late)
	if 2*target >= late {
		return lateTarget
	}
	return lateGenerator
}

// bucketSums is one worker's running sums for one Bucket.
type bucketSums struct {
	completed, responses, late int64
	latency, service           time.Duration
}

func (b *bucketSums) add(o *bucketSums) {
	b.completed += o.completed
	b.responses += o.responses
	b.late += o.late
	b.latency += o.latency
	b.service += o.service
}

func (b *bucketSums) bucket() Bucket {
	out := Bucket{Completed: b.completed, Responses: b.responses, Late: b.late}
	if b.responses > 0 {
		out.Latency = b.latency / time.Duration(b.responses)
		out.Service = b.service / time.Duration(b.responses)
	}
	return out
}

// slot is where a request that finished at done goes: a slice of the window, or the
// tail for requests that finished after it (those in flight when it ended). It is nil
// when the run has no window (a request count without a duration).
func (w *worker) slot(done time.Time) *bucketSums {
	r := w.r
	if r.Duration <= 0 {
		return nil
	}
	i := int(done.Sub(r.start) * TimelineBuckets / r.Duration)
	if i >= TimelineBuckets {
		return &w.counts.tail
	}
	return &w.counts.timeline[max(i, 0)]
}

// offset is connection i's phase in the open-loop schedule: the connections together
// send every interval/C.
func (p *plan) offset(i int) time.Duration {
	return time.Duration(i) * p.interval / time.Duration(p.Connections)
}

// scheduled counts the open-loop sends due within the window: connection i's are at
// offset(i) + k·interval before Duration, capped by Requests when that is set.
func (p *plan) scheduled() int64 {
	if p.interval <= 0 {
		return 0
	}
	var n int64
	if p.Duration > 0 {
		for i := range p.Connections {
			if off := p.offset(i); off < p.Duration {
				n += int64((p.Duration - off + p.interval - 1) / p.interval)
			}
		}
	}
	if p.Requests > 0 && (p.Duration == 0 || n > p.Requests) {
		n = p.Requests
	}
	return n
}
