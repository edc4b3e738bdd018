// Package loadgen is dbbench's HTTP load generator: C connections sending one op's
// requests (request.go: GET /users/{id} with ids drawn uniformly from 1..N, a list, an
// insert or an update), either as fast as answers come back (closed loop) or at a
// fixed rate with latency measured from the intended send time (open loop, no
// coordinated omission, as wrk2 does).
//
// Every response's status is counted; a sample of 2xx bodies goes through Config.Check.
// Each connection keeps its own HDR histograms, merged at the end (percentiles are never
// averaged). The generator's own CPU time is part of the result, so a generator that
// eats the machine shows up as a finding.
//
// So that a reader can tell a point past the target's capacity from one that kept up
// (runners/saturation does), the result also counts, in open loop, the sends the
// schedule asked for, those that went out late and whose fault that was (the target's:
// the connection still waited for an answer; or the generator's own), and,
// in both modes, a timeline of the window in TimelineBuckets slices: completions, mean
// latency and late sends per slice. All of it is kept per connection and merged at the
// end, like the histograms, and nothing is allocated per request.
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"dbbench/runners/histogram"
	"dbbench/runners/measure/precise"
	"dbbench/runners/measure/procstat"
)

// DefaultPath is the endpoint of the benchmark; {id} is replaced by each request's id.
const DefaultPath = "/users/{id}"

// DefaultTimeout bounds one request (connect, send and the whole response) when
// Config.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// DefaultCheckEvery is how often a connection hands a 2xx body to Config.Check when
// Config.CheckEvery is zero: one response in this many.
const DefaultCheckEvery = 100

// Config describes one measurement.
type Config struct {
	Target string // base URL, http://127.0.0.1:PORT
	// Op is what the requests ask for (request.go); "" is Get. Only Get takes a Path.
	Op Op
	// Path is Get's request path; "{id}" in it is replaced by the request's id. Empty
	// means DefaultPath. A path without "{id}" (such as /hello) is sent as it is.
	Path  string
	Limit int // List and ListOrders: the users each request asks for, at most Rows
	// Orders and ListOrders: the orders per user each request asks for (Orders: its
	// limit; ListOrders: its orders), and the form the target reads them in (fetch=).
	Orders int
	Fetch  string
	Rows   uint32 // N: ids are uniform over 1..N; required when the path has {id}
	// Seed makes a run reproducible: connection i draws its ids from a PCG source
	// seeded with (Seed, i), so the same Seed gives each connection the same ids.
	Seed        uint64
	Connections int     // C, at least 1
	Rate        float64 // total requests per second; 0 means closed loop
	// Poisson, in open loop, spaces each connection's sends by exponential gaps (mean
	// C/Rate; the C connections together are a Poisson process of Rate), as arrivals
	// from many independent users come; false spaces them evenly. Concurrency then rises
	// and falls, as it does in production: where an even schedule never needs more
	// than a few connections at once, a burst does (a pool that keeps 2 idle dials).
	Poisson bool
	// Duration is how long requests are sent. In-flight requests at the end are
	// waited for (up to Timeout) and counted.
	Duration time.Duration
	// Requests, when positive, stops the run after exactly this many requests in all
	// (the round-trip capture needs an exact count). Duration 0 then means no time limit.
	Requests int64
	// DisableKeepAlives opens a new TCP connection for every request and sends
	// "Connection: close"; the connect time is part of the latency.
	DisableKeepAlives bool
	Timeout           time.Duration // per request; 0 means DefaultTimeout
	// Check, if set, is given the body of one 2xx response in CheckEvery per
	// connection, with what the request asked for; an error counts the request under
	// "body". Connections call it concurrently; body is valid only during the call.
	Check      func(q Request, body []byte) error
	CheckEvery int // 0 means DefaultCheckEvery; 1 checks every response
	// KeepAcked keeps the counter of every insert answered 2xx (Result.AckedInserts):
	// what the server acknowledged, to be found in the table after it was killed.
	KeepAcked bool
	// Gate, closed loop only, admits every request: a connection waits in Enter before
	// it sends and calls Leave once the answer is in (or failed). The run ends when Enter
	// says so, so Duration may then be 0. Package run shares the load among the variants
	// of a block this way (one variant's turn at a time).
	Gate Gate
}

// Gate lets requests through (see Config.Gate).
type Gate interface {
	// Enter blocks until this request may be sent, and returns true; false ends the
	// connection's run. abort is closed when the run is cancelled.
	Enter(abort <-chan struct{}) bool
	Leave()
}

// plan is a validated Config turned into what the workers need.
type plan struct {
	Config
	addr, host         string
	method             string // GET unless the op posts
	pathHead, pathTail string
	hasID              bool
	interval           time.Duration // open loop: time between sends on one connection
}

func (c Config) plan() (*plan, error) {
	p := &plan{Config: c, method: "GET"}
	u, err := url.Parse(c.Target)
	if err != nil || u.Scheme != "http" || u.Host == "" || u.Port() == "" || u.RawQuery != "" {
		return nil, fmt.Errorf("loadgen: target %q: want http://HOST:PORT", c.Target)
	}
	p.addr, p.host = u.Host, u.Host
	if err := p.shape(); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(p.Path, "/") {
		return nil, fmt.Errorf("loadgen: path %q must start with /", p.Path)
	}
	full := strings.TrimSuffix(u.EscapedPath(), "/") + p.Path
	if head, tail, ok := strings.Cut(full, "{id}"); ok {
		if strings.Contains(tail, "{id}") {
			return nil, fmt.Errorf("loadgen: path %q has {id} twice", p.Path)
		}
		if c.Rows < 1 {
			return nil, fmt.Errorf("loadgen: path %q needs Rows (the N of ids 1..N) of at least 1", p.Path)
		}
		p.pathHead, p.pathTail, p.hasID = head, tail, true
	} else {
		p.pathHead = full
	}
	if strings.ContainsAny(full, " \r\n") {
		return nil, fmt.Errorf("loadgen: path %q has a space or line break", p.Path)
	}
	if c.Connections < 1 {
		return nil, fmt.Errorf("loadgen: %d connections: want at least 1", c.Connections)
	}
	if c.Rate < 0 {
		return nil, fmt.Errorf("loadgen: rate %g req/s: want 0 (closed loop) or more", c.Rate)
	}
	if c.Gate != nil && c.Rate > 0 {
		return nil, fmt.Errorf("loadgen: a gate needs a closed loop (rate 0), not %g req/s", c.Rate)
	}
	if c.Duration < 0 || c.Requests < 0 || (c.Duration == 0 && c.Requests == 0 && c.Gate == nil) {
		return nil, fmt.Errorf("loadgen: duration %v and requests %d: want a positive duration, a positive request count, or both", c.Duration, c.Requests)
	}
	if c.Timeout < 0 {
		return nil, fmt.Errorf("loadgen: timeout %v: want 0 (default %v) or more", c.Timeout, DefaultTimeout)
	}
	if p.Timeout == 0 {
		p.Timeout = DefaultTimeout
	}
	if c.CheckEvery < 0 {
		return nil, fmt.Errorf("loadgen: check every %d responses: want 0 (default %d) or more", c.CheckEvery, DefaultCheckEvery)
	}
	if p.CheckEvery == 0 {
		p.CheckEvery = DefaultCheckEvery
	}
	if c.Rate > 0 {
		p.interval = time.Duration(float64(c.Connections) / c.Rate * float64(time.Second))
		if p.interval <= 0 {
			return nil, fmt.Errorf("loadgen: rate %g req/s over %d connections is too high to schedule", c.Rate, c.Connections)
		}
	}
	return p, nil
}

// Run sends the load Config describes and returns what it measured.
//
// Closed loop: each connection sends its next request when the previous answer is in.
//
// Open loop: connection i sends at start + i/Rate + k*C/Rate, so the connections
// together keep the rate, evenly phased. A connection carries one request at a time: if
// an answer comes late it sends the next ones at once, but measures each from the time
// it should have been sent. When Rate is beyond what the target (or the generator)
// sustains, QPS stays below Rate, latencies grow through the run (they are queueing
// time, and that is the truth of that rate), and sends still pending when Duration ends
// are counted in Result.Unsent rather than sent; Result.Scheduled, Late, LateTarget,
// LateGenerator and Timeline say how far the schedule was kept, and why not. Latency
// from the intended send time also includes the generator's own lateness in waking up
// (see sleepUntil; README.md, "Measured"): for medians of fast endpoints, read Service.
//
// If ctx is cancelled, Run stops at once: requests in flight are abandoned and not
// counted, and the result so far is returned together with ctx's error.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	p, err := cfg.plan()
	if err != nil {
		return nil, err
	}
	r := &run{plan: p}
	if p.Requests > 0 {
		r.tickets.Store(p.Requests)
	}
	workers := make([]*worker, p.Connections)
	for i := range workers {
		workers[i] = newWorker(r, i)
	}
	stopCancel := context.AfterFunc(ctx, func() { r.abort(workers) })
	defer stopCancel()
	defer func() {
		for _, w := range workers {
			w.c.close()
		}
	}()

	// Connect before the clock starts: connection setup is not what is measured
	// (with keep-alives off it is, and it happens per request).
	if !p.DisableKeepAlives {
		var wg sync.WaitGroup
		for _, w := range workers {
			wg.Go(func() { _ = w.c.connect(time.Now().Add(p.Timeout)) })
		}
		wg.Wait()
	}

	cpu0, err := procstat.Self()
	if err != nil {
		return nil, err
	}
	r.start = time.Now()
	if p.Duration > 0 {
		r.end = r.start.Add(p.Duration)
	}
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Go(w.loop)
	}
	wg.Wait()
	elapsed := time.Since(r.start)
	cpu1, err := procstat.Self()
	if err != nil {
		return nil, err
	}
	res := r.result(workers, elapsed, cpu1.Own()-cpu0.Own())
	if ctx.Err() != nil {
		return res, fmt.Errorf("loadgen: stopped after %v: %w", elapsed.Round(time.Millisecond), ctx.Err())
	}
	return res, nil
}

// run is the state the workers share.
type run struct {
	*plan
	start, end time.Time // end is zero without a duration
	tickets    atomic.Int64
	stopping   atomic.Bool
}

// abort stops every worker now, interrupting reads and writes in flight.
func (r *run) abort(workers []*worker) {
	r.stopping.Store(true)
	past := time.Unix(1, 0)
	for _, w := range workers {
		w.mu.Lock()
		if w.nc != nil {
			_ = w.nc.SetDeadline(past)
		}
		close(w.wake)
		w.mu.Unlock()
	}
}

// worker drives one connection and keeps its own counts and histograms.
type worker struct {
	r       *run
	id      int
	c       *client
	ids     *rand.Rand
	gaps    *rand.Rand    // Poisson's gaps: a stream of their own, so the ids are the same
	inserts uint64        // the counter of the next insert's name
	wake    chan struct{} // closed by abort: ends an open-loop wait
	mu      sync.Mutex    // guards nc against abort
	nc      net.Conn
	counts  counts
}

// counts is what one worker measured.
type counts struct {
	requests int64
	ok       int64
	checked  int64
	unsent   int64
	errors   [numClasses]int64
	status   map[int]int64
	samples  [numClasses]string // the first error of each class
	latency  *histogram.Histogram
	service  *histogram.Histogram // open loop only
	// Open loop: sends late by whose fault (indexed by lateness), and every send's
	// delay from its intended time.
	late      [numLateness]int64
	sendDelay *histogram.Histogram
	// By completion time: slices of the window, and what finished after it.
	timeline [TimelineBuckets]bucketSums
	tail     bucketSums
	acked    []uint64 // Config.KeepAcked: inserts answered 2xx, by counter
}

func newWorker(r *run, i int) *worker {
	w := &worker{
		r:    r,
		id:   i,
		ids:  rand.New(rand.NewPCG(r.Seed, uint64(i))),
		wake: make(chan struct{}),
		counts: counts{
			status:  make(map[int]int64, 4),
			latency: histogram.New(),
		},
	}
	if r.interval > 0 {
		w.counts.service = histogram.New()
		w.counts.sendDelay = histogram.New()
	}
	if r.Poisson {
		w.gaps = rand.New(rand.NewPCG(r.Seed^0x706f6973736f6e, uint64(i))) // "poisson"
	}
	if r.Op == Insert {
		w.inserts = w.ids.Uint64() >> 1 // far apart per connection, and no id stream to keep
	}
	w.c = newClient(r.addr, r.host, r.method, r.pathHead, r.pathTail, r.hasID, !r.DisableKeepAlives, r.Timeout)
	w.c.reg = w.register
	w.c.stop = &r.stopping
	return w
}

// register records the worker's current connection (nil: none) for abort. It returns
// false once the run is stopping, so a connection made after abort is closed at once.
func (w *worker) register(nc net.Conn) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if nc != nil && w.r.stopping.Load() {
		return false
	}
	w.nc = nc
	return true
}

// take claims the right to send one more request.
func (w *worker) take() bool {
	if w.r.stopping.Load() {
		return false
	}
	return w.r.Requests == 0 || w.r.tickets.Add(-1) >= 0
}

func (w *worker) loop() {
	r := w.r
	var sinceCheck int
	keepBody := func(status int) bool {
		if status < 200 || status > 299 { // the first error's body says its cause
			return w.counts.samples[classNon2xx] == ""
		}
		if r.Check == nil {
			return false
		}
		sinceCheck++
		if sinceCheck < r.CheckEvery {
			return false
		}
		sinceCheck = 0
		return true
	}
	var timer *time.Timer
	var last *precise.Timer // nil (a Go timer's last millisecond) in closed loop or without a timerfd
	if r.interval > 0 {
		last, _ = precise.New()
		defer last.Close()
	}
	// When the connection would have been free had every send gone out as early as the
	// target allowed (see classifyLate).
	var idealFree time.Time
	var at time.Duration // Poisson: the connection's next send after start
	for k := int64(0); ; k++ {
		var intended time.Time
		if r.interval > 0 {
			if w.gaps != nil {
				at += time.Duration(w.gaps.ExpFloat64() * float64(r.interval))
			} else {
				at = r.offset(w.id) + time.Duration(k)*r.interval
			}
			intended = r.start.Add(at)
			if !r.end.IsZero() && !intended.Before(r.end) {
				return
			}
			if !w.sleepUntil(intended, &timer, last) {
				return
			}
		}
		if r.Gate != nil && !r.Gate.Enter(w.wake) { // closed loop only: the wait is no latency
			return
		}
		now := time.Now()
		if r.interval == 0 {
			intended = now
		}
		if !r.end.IsZero() && !now.Before(r.end) {
			if r.interval > 0 { // behind schedule: say how far
				w.counts.unsent += w.dueBefore(intended, at)
			}
			w.leave()
			return
		}
		if !w.take() {
			w.leave()
			return
		}
		late := onTime
		if r.interval > 0 {
			late = classifyLate(intended, idealFree, now)
		}
		q := w.next()
		resp, err := w.c.do(q, now, keepBody)
		done := time.Now()
		if r.stopping.Load() {
			w.leave()
			return // abandoned by a cancel: neither a success nor the target's fault
		}
		w.record(q, resp, err, intended, now, done, late)
		w.c.finish()
		w.leave()
		var re *reqError
		if errors.As(err, &re) && re.class == classConnect {
			// Do not spin on a dead target; a connect error is rare otherwise. The
			// pause is the target's doing, so it counts as service time below.
			time.Sleep(10 * time.Millisecond)
			done = time.Now()
		}
		if intended.After(idealFree) {
			idealFree = intended
		}
		idealFree = idealFree.Add(done.Sub(now))
	}
}

// leave tells the gate, if any, that the request admitted last is over.
func (w *worker) leave() {
	if w.r.Gate != nil {
		w.r.Gate.Leave()
	}
}

// sleepUntil waits for t; false means the run was aborted meanwhile. Go's timers wake
// through epoll, whose timeout is in milliseconds, so they wake late by up to that
// millisecond (README.md, "Measured"), which open loop would add to every latency. So
// the Go timer, which an abort interrupts, only covers all but the last millisecond, and
// a precise timer the rest: nanosleep, as punctual, held the goroutine's P while it
// slept, and starved the delay proxy sharing this process (README.md, "Measured").
func (w *worker) sleepUntil(t time.Time, timer **time.Timer, last *precise.Timer) bool {
	if wait := time.Until(t) - time.Millisecond; wait > 0 {
		if *timer == nil {
			*timer = time.NewTimer(wait)
		} else {
			(*timer).Reset(wait)
		}
		select {
		case <-(*timer).C:
		case <-w.wake:
			return false
		}
	}
	last.SleepUntil(t)
	return true
}

func (w *worker) record(q Request, resp response, err error, intended, sent, done time.Time, late lateness) {
	c := &w.counts
	c.requests++
	c.late[late]++
	if c.sendDelay != nil {
		histogram.Record(c.sendDelay, sent.Sub(intended))
	}
	b := w.slot(done)
	if b != nil {
		b.completed++
		if late != onTime {
			b.late++
		}
	}
	if err != nil {
		re := err.(*reqError)
		c.fail(re.class, err)
		return
	}
	c.status[resp.status]++
	if w.r.KeepAcked && q.Op == Insert && resp.status/100 == 2 {
		c.acked = append(c.acked, q.N) // committed, whether or not its body passes Check
	}
	histogram.Record(c.latency, done.Sub(intended))
	if c.service != nil { // open loop; in closed loop the two are the same
		histogram.Record(c.service, done.Sub(sent))
	}
	if b != nil {
		b.responses++
		b.latency += done.Sub(intended)
		b.service += done.Sub(sent)
	}
	switch {
	case resp.status < 200 || resp.status > 299:
		c.fail(classNon2xx, fmt.Errorf("status %d%s", resp.status, bodyWords(resp.body)))
	case resp.kept:
		c.checked++
		if cerr := w.r.Check(q, resp.body); cerr != nil {
			c.fail(classBody, fmt.Errorf("%s: %w", q, cerr))
			return
		}
		c.ok++
	default:
		c.ok++
	}
}

// bodyWords is an error response's body as an error sample's tail, ": …", at most 200
// bytes on one line; "" for none.
func bodyWords(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if s == "" {
		return ""
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return ": " + s
}

func (c *counts) fail(class errClass, err error) {
	c.errors[class]++
	if c.samples[class] == "" {
		c.samples[class] = err.Error()
	}
}

// dueBefore counts the sends due from intended (the one at offset at, included) to the
// window's end: on the even schedule every interval, with Poisson the gaps drawn on.
func (w *worker) dueBefore(intended time.Time, at time.Duration) int64 {
	r := w.r
	if w.gaps == nil {
		return int64((r.end.Sub(intended) + r.interval - 1) / r.interval)
	}
	n := int64(0)
	for r.start.Add(at).Before(r.end) {
		n++
		at += time.Duration(w.gaps.ExpFloat64() * float64(r.interval))
	}
	return n
}
