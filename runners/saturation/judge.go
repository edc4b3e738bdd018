package saturation

import (
	"fmt"
	"strings"
	"time"

	"dbbench/runners/units"
)

// States of a Verdict.
const (
	OK              = "ok"
	PastCapacity    = "past capacity"          // open loop: the target did not keep the rate
	GeneratorBehind = "generator behind"       // the load generator did not keep its own schedule
	Queueing        = "queueing (closed loop)" // closed loop: latency is mostly time in a queue
)

// The rules' thresholds, each in one place with its reason (README.md has the table).
const (
	// Tolerance is how far the completed requests may fall short of those offered.
	// Open-loop sends follow a fixed schedule, so in a target that keeps up the
	// completions in the steady part of the window match it to within a few requests
	// at the edges (under 1% at 400 req/s over 1.5 s); 3% is well above that and well
	// below the shortfall of any point that matters.
	Tolerance = 0.03
	// MinShortfall is the counting's own grain, in requests: at low rates 3% is less
	// than the requests that straddle the window's edges.
	MinShortfall = 3
	// LateShareMax is the share of sends that may go out late (beyond
	// loadgen.LateAfter) for one side's sake. Beyond one in ten, the p90 and everything
	// above it include waiting to be sent: queueing, not service time.
	LateShareMax = 0.10
	// MinTrendSlices is the fewest timeline slices with responses that a trend is
	// fitted to: Theil–Sen has no interval of its slope with fewer than five.
	MinTrendSlices = 5
	// BacklogRise is how much, as a multiple of the latency at the window's start, the
	// latency must rise across the window for a growing backlog to matter: it doubles.
	// A steady queue does not rise at all; a backlog past capacity rises by the
	// shortfall times the window (at 2× capacity over 1.5 s, by 0.75 s).
	BacklogRise = 1.0
	// BacklogMinRise is the least absolute rise that counts: below a millisecond a
	// slope is the generator's own jitter (see loadgen.LateAfter).
	BacklogMinRise = time.Millisecond
	// GeneratorBusyMax is the share of its cores beyond which the generator itself is
	// the bottleneck: whatever else was measured ran on what was left.
	GeneratorBusyMax = 0.9
	// WaitShareMax is the share of the requests' time spent waiting for a pool
	// connection or in the server's queue beyond which their latency is mostly queue:
	// past half, the p50 and above describe the queue's length (clients over slots),
	// not the layer's cost. Throughput is still the throughput at that pool.
	WaitShareMax = 0.5
	// WaitShareNamed is the share of the requests' time in a measured queue beyond
	// which a past-capacity reason names that queue: where the backlog sat.
	WaitShareNamed = 0.1
	// P99Ceiling is the last resort, where no cause can be seen: no single-row read by
	// primary key takes a second unless it queued. The slowest variant answers far below
	// it (README.md, "Measured"); 8 round trips at 2 ms each way is 32 ms.
	P99Ceiling = time.Second
)

// Verdict is what Judge says of one repetition.
type Verdict struct {
	State  string `json:"state"`  // OK, PastCapacity, GeneratorBehind or Queueing
	Reason string `json:"reason"` // in words, with the numbers that decided it
	// Offered is the rate asked for (0 in closed loop); Achieved the throughput kept in
	// the steady part of the window, requests per second.
	Offered  float64 `json:"offered"`
	Achieved float64 `json:"achieved"`
	// The signals as measured, whether or not they decided the state.
	Shortfall     bool    `json:"shortfall"`     // open loop: Achieved short of Offered beyond Tolerance
	Backlog       bool    `json:"backlog"`       // latency from the intended send grows across the window
	LatencyStart  float64 `json:"latency_start"` // seconds: medians of the timeline's first and last thirds
	LatencyEnd    float64 `json:"latency_end"`
	LateTarget    float64 `json:"late_target"` // shares of the sends late for each side's sake
	LateGenerator float64 `json:"late_generator"`
	GeneratorBusy float64 `json:"generator_busy"`
	PoolWait      float64 `json:"pool_wait"` // shares of the requests' time; -1 where not measured
	Queue         float64 `json:"queue"`
}

// Marked says the point's latency is not service time: any state but OK.
func (v Verdict) Marked() bool { return v.State != OK }

// Flag is the verdict as one line for a variant's flags: "past capacity: …".
func (v Verdict) Flag() string { return v.State + ": " + v.Reason }

// IsFlag says whether a variant's flag is a verdict of this package (or the fixed p99
// rule's "saturated", results/upgrade.go), so that a new verdict replaces it.
func IsFlag(flag string) bool {
	for _, s := range []string{PastCapacity, GeneratorBehind, Queueing, "saturated"} {
		if strings.HasPrefix(flag, s+":") {
			return true
		}
	}
	return false
}

// Judge decides whether one repetition's latency is service time or queueing.
//
// Open loop: the generator is behind when more than LateShareMax of the sends were
// late for its own sake (and more than for the target's), or it kept more than
// GeneratorBusyMax of its cores busy: that is a finding about the generator, said
// instead of anything about the target. Otherwise the point is past capacity when the
// throughput falls short of the rate by more than Tolerance, or the latency from the
// intended send keeps rising across the window (a backlog that keeps growing), or more
// than LateShareMax of the sends waited for the answer before them; the p99 above
// P99Ceiling is the last resort.
//
// Closed loop: the generator is behind when it kept its cores busy; the latency is
// queueing when more than WaitShareMax of the requests' time was spent waiting for a
// pool connection or in the server's queue, or, as the last resort where no queue was
// seen, the p99 is above P99Ceiling.
func Judge(s Summary) Verdict {
	v := Verdict{State: OK, Offered: s.Offered, Achieved: s.achieved(), GeneratorBusy: s.GeneratorBusy}
	if s.Completed == 0 {
		v.Reason = "no request finished: nothing to judge"
		return v
	}
	v.PoolWait, v.Queue = s.waitShares()
	v.LateTarget, v.LateGenerator = share(s.LateTarget, s.Completed), share(s.LateGenerator, s.Completed)
	var trend bool
	v.Backlog, v.LatencyStart, v.LatencyEnd, trend = s.backlog()
	if s.Mode == Open {
		v.Shortfall = s.shortfall()
		judgeOpen(&v, s, trend)
	} else {
		judgeClosed(&v, s)
	}
	return v
}

func judgeOpen(v *Verdict, s Summary, trend bool) {
	w := words{v: v, s: s}
	switch {
	case v.LateGenerator > LateShareMax && s.LateGenerator > s.LateTarget || v.GeneratorBusy >= GeneratorBusyMax:
		v.State = GeneratorBehind
		v.Reason = w.generator() + "; " + w.achieved() + ". Latency and throughput here describe the generator, not the target"
	case v.Shortfall || v.Backlog || v.LateTarget > LateShareMax:
		v.State = PastCapacity
		parts := []string{w.achieved()}
		if s.Unsent > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d scheduled sends never went out", s.Unsent, s.Scheduled))
		}
		if v.Backlog {
			parts = append(parts, fmt.Sprintf("latency rose from %s to %s over the window: a backlog that keeps growing", secs(v.LatencyStart), secs(v.LatencyEnd)))
		}
		if v.LateTarget > LateShareMax {
			parts = append(parts, fmt.Sprintf("%s of sends went out late, waiting for the answer before them on their connection", units.Share(v.LateTarget)))
		}
		parts = append(parts, w.waits(WaitShareNamed)...)
		v.Reason = strings.Join(parts, "; ") + ". Its latency is queueing, not service time"
	case s.P99 > P99Ceiling.Seconds():
		v.State = PastCapacity
		v.Reason = fmt.Sprintf("%s, yet p99 %s is above the %s ceiling (a last resort: %s): requests queued where the generator cannot see, such as a stall of the target",
			w.achieved(), secs(s.P99), secs(P99Ceiling.Seconds()), ceilingWhy)
	default:
		parts := []string{w.achieved()}
		if trend {
			parts = append(parts, fmt.Sprintf("latency %s at the start of the window and %s at the end", secs(v.LatencyStart), secs(v.LatencyEnd)))
		}
		parts = append(parts, fmt.Sprintf("%s of sends late", units.Share(share(s.LateTarget+s.LateGenerator, s.Completed))))
		parts = append(parts, w.waits(0)...)
		v.Reason = strings.Join(parts, "; ")
	}
}

func judgeClosed(v *Verdict, s Summary) {
	w := words{v: v, s: s}
	switch {
	case v.GeneratorBusy >= GeneratorBusyMax:
		v.State = GeneratorBehind
		v.Reason = w.generator() + ". Throughput here is the generator's limit, not the target's"
	case v.PoolWait > WaitShareMax || v.Queue > WaitShareMax:
		v.State = Queueing
		v.Reason = strings.Join(w.waits(WaitShareMax), "; ") + fmt.Sprintf(". Latency is queueing, not service time; %s req/s is the throughput with %d clients", rate(v.Achieved), s.Connections)
	case s.P99 > P99Ceiling.Seconds():
		v.State = Queueing
		parts := []string{fmt.Sprintf("p99 %s is above the %s ceiling (a last resort: %s)", secs(s.P99), secs(P99Ceiling.Seconds()), ceilingWhy)}
		if seen := w.waits(0); len(seen) > 0 {
			parts = append(parts, "no queue explains it: "+strings.Join(seen, ", "))
		} else {
			parts = append(parts, "no queue was measured (pool waits not counted, server queue not sampled)")
		}
		v.Reason = strings.Join(parts, "; ")
	default:
		parts := []string{fmt.Sprintf("%s req/s with %d clients, p99 %s", rate(v.Achieved), s.Connections, secs(s.P99))}
		v.Reason = strings.Join(append(parts, w.waits(0)...), "; ")
	}
}

const ceilingWhy = "no single-row read by primary key takes a second here unless it queued"
