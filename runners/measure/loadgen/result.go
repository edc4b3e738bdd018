package loadgen

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"time"

	"dbbench/runners/histogram"
)

// Error classes, the keys of Result.Errors.
const (
	ErrConnect = "connect" // could not open a TCP connection
	ErrWrite   = "write"   // the request could not be sent
	ErrRead    = "read"    // the connection failed or the response was malformed
	ErrTimeout = "timeout" // no whole response within Config.Timeout
	ErrNon2xx  = "non2xx"  // a whole response with a status outside 200-299 (see Result.Status)
	ErrBody    = "body"    // a 2xx body that Config.Check rejected
)

// Result is what one Run measured.
type Result struct {
	Mode        string  // "closed" or "open"
	Connections int     // C
	Rate        float64 // open loop: the total rate asked for; 0 in closed loop

	// Requests counts every request that finished, well or not: OK plus all Errors.
	Requests int64
	OK       int64            // 2xx, and the body passed Check when it was checked
	Errors   map[string]int64 // by class (ErrConnect, ...), every class present
	Status   map[int]int64    // whole responses by status code
	Checked  int64            // bodies given to Check
	// AckedInserts are the counters (fixtures.InsertedName) of the inserts answered 2xx,
	// when Config.KeepAcked.
	AckedInserts []uint64
	// ErrorSamples holds the first error message of each class that occurred.
	ErrorSamples map[string]string
	// Unsent counts open-loop sends still due when Duration ended: the rate was not kept.
	Unsent int64
	// Scheduled counts the open-loop sends due within the window by the schedule (Rate ×
	// Duration, capped by Config.Requests): what the rate asked for. Without a cancel,
	// Scheduled = Requests + Unsent. 0 in closed loop.
	Scheduled int64
	// Late counts open-loop sends that went out more than LateAfter after their intended
	// time, split by whose fault it was. A connection carries one request at a time:
	// LateTarget were late because the connection's previous answer came after the send
	// was due (the target, or too few connections for its latency, could not keep up);
	// LateGenerator were late although the connection was free (the generator's own
	// timers, scheduling or CPU). Late = LateTarget + LateGenerator.
	Late, LateTarget, LateGenerator int64

	Elapsed time.Duration
	QPS     float64 // OK / Elapsed: failed requests are not throughput

	// Latency is measured from the intended send time (open loop; in closed loop that
	// is the actual send time), Service from the actual send. Only whole responses are
	// recorded, in nanoseconds. In open loop the difference between them is the time
	// requests waited to be sent: what a generator with coordinated omission hides.
	Latency *histogram.Histogram
	Service *histogram.Histogram
	// SendDelay is the open-loop distribution of every send's delay from its intended
	// time (nanoseconds; values under a microsecond are recorded as one): the
	// coordinated-omission gap itself, request by request. nil in closed loop.
	SendDelay *histogram.Histogram

	// Window is the measured window (Config.Duration; 0 without one) and Timeline its
	// TimelineBuckets equal slices by completion time, so that a reader tells a backlog
	// that keeps growing (latency rising slice after slice) from a steady queue. Tail is
	// what finished after the window: requests in flight when it ended. Requests is the
	// sum of Completed over Timeline and Tail. Timeline is nil without a window.
	Window   time.Duration
	Timeline []Bucket
	Tail     Bucket

	// CPU is the generator's process CPU time (user+system) while the load ran. It is
	// the whole process: anything else dbbench does meanwhile counts too.
	CPU time.Duration
	// Procs is GOMAXPROCS during the run: the cores the generator could use at once.
	Procs int
}

// GeneratorBusy is the share of the cores it could use that the generator kept busy:
// CPU / (Elapsed × Procs). Near 1, the generator itself was the bottleneck.
func (r *Result) GeneratorBusy() float64 {
	if r.Elapsed <= 0 || r.Procs <= 0 {
		return 0
	}
	return r.CPU.Seconds() / (r.Elapsed.Seconds() * float64(r.Procs))
}

// ErrorCount is the sum over all error classes.
func (r *Result) ErrorCount() int64 {
	var n int64
	for _, v := range r.Errors {
		n += v
	}
	return n
}

// ErrorSummary names each error class that occurred with its count and first message,
// "timeout 3: context deadline exceeded; connect 1: …" in class order, for an error
// line; "" without errors.
func (r *Result) ErrorSummary() string {
	var parts []string
	for class, n := range r.Errors {
		if n > 0 {
			s := fmt.Sprintf("%s %d", class, n)
			if sample := r.ErrorSamples[class]; sample != "" {
				s += ": " + sample
			}
			parts = append(parts, s)
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

// CPUPerRequest is the generator's CPU seconds per finished request.
func (r *Result) CPUPerRequest() float64 {
	if r.Requests == 0 {
		return 0
	}
	return r.CPU.Seconds() / float64(r.Requests)
}

// result merges the workers' counts.
func (r *run) result(workers []*worker, elapsed, cpu time.Duration) *Result {
	res := &Result{
		Mode:         "closed",
		Connections:  r.Connections,
		Rate:         r.Rate,
		Errors:       make(map[string]int64, numClasses),
		Status:       make(map[int]int64),
		ErrorSamples: make(map[string]string),
		Elapsed:      elapsed,
		Latency:      histogram.New(),
		CPU:          cpu,
		Procs:        runtime.GOMAXPROCS(0),
		Window:       r.Duration,
		Scheduled:    r.scheduled(),
	}
	if r.Rate > 0 {
		res.Mode = "open"
		res.Service = histogram.New()
		res.SendDelay = histogram.New()
	}
	var timeline [TimelineBuckets]bucketSums
	var tail bucketSums
	for class := classNone + 1; class < numClasses; class++ {
		res.Errors[classNames[class]] = 0
	}
	for _, w := range workers {
		c := &w.counts
		res.Requests += c.requests
		res.OK += c.ok
		res.Checked += c.checked
		res.Unsent += c.unsent
		res.AckedInserts = append(res.AckedInserts, c.acked...)
		for class := classNone + 1; class < numClasses; class++ {
			name := classNames[class]
			res.Errors[name] += c.errors[class]
			if c.samples[class] != "" && res.ErrorSamples[name] == "" {
				res.ErrorSamples[name] = c.samples[class]
			}
		}
		for code, n := range c.status {
			res.Status[code] += n
		}
		res.LateTarget += c.late[lateTarget]
		res.LateGenerator += c.late[lateGenerator]
		res.Latency.Merge(c.latency)
		if c.service != nil {
			res.Service.Merge(c.service)
			res.SendDelay.Merge(c.sendDelay)
		}
		for i := range timeline {
			timeline[i].add(&c.timeline[i])
		}
		tail.add(&c.tail)
	}
	if r.Poisson && r.interval > 0 { // the gaps drawn are the schedule: each send was made or counted unsent
		res.Scheduled = res.Requests + res.Unsent
	}
	res.Late = res.LateTarget + res.LateGenerator
	if r.Duration > 0 {
		res.Timeline = make([]Bucket, len(timeline))
		for i := range timeline {
			res.Timeline[i] = timeline[i].bucket()
		}
	}
	res.Tail = tail.bucket()
	if res.Service == nil { // closed loop: sent when intended, so the two are one
		res.Service = res.Latency.Clone()
	}
	if elapsed > 0 {
		res.QPS = float64(res.OK) / elapsed.Seconds()
	}
	return res
}
