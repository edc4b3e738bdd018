package saturation

import "dbbench/runners/stats"

// steady is the completions of the timeline's slices after the first and the seconds
// they span. The first slice is left out because it is short by the requests in flight
// when the window began; the window's end has no such edge, since what finished after
// it is in the tail. ok is false without a timeline of at least two slices.
func (s Summary) steady() (completed int64, span float64, ok bool) {
	n := len(s.Timeline)
	if n < 2 || s.Window <= 0 {
		return 0, 0, false
	}
	for _, b := range s.Timeline[1:] {
		completed += b.Completed
	}
	return completed, s.Window * float64(n-1) / float64(n), true
}

// achieved is the throughput the target kept, in requests per second: over the steady
// part of the timeline, or over the whole run without a timeline.
func (s Summary) achieved() float64 {
	if c, span, ok := s.steady(); ok {
		return float64(c) / span
	}
	if s.Elapsed > 0 {
		return float64(s.Completed) / s.Elapsed
	}
	return 0
}

// shortfall says whether the requests completed fell short of those offered by more
// than Tolerance (and more than MinShortfall requests, the counting's own grain).
func (s Summary) shortfall() bool {
	if s.Offered <= 0 {
		return false
	}
	if c, span, ok := s.steady(); ok {
		expected := s.Offered * span
		return expected-float64(c) > max(Tolerance*expected, MinShortfall)
	}
	// No timeline: the sends that never went out say the same, less precisely.
	return float64(s.Unsent) > max(Tolerance*float64(s.Scheduled), MinShortfall)
}

// backlog fits a Theil–Sen line to the timeline's mean latency (from the intended send
// time) against time. It grows when the slope's 95% interval lies above 0 and the line
// rises across the window by at least the starting latency (it doubles) and by at
// least BacklogMinRise. start and end are the medians of the first and last thirds of
// the slices that had responses, for the words; ok is false with fewer than
// MinTrendSlices of them.
func (s Summary) backlog() (growing bool, start, end float64, ok bool) {
	var x, y []float64
	for i, b := range s.Timeline {
		if b.Responses > 0 {
			x = append(x, (float64(i)+0.5)*s.Window/float64(len(s.Timeline)))
			y = append(y, b.Latency)
		}
	}
	if len(x) < MinTrendSlices {
		return false, 0, 0, false
	}
	k := max(1, len(y)/3)
	start, end = stats.Median(y[:k]), stats.Median(y[len(y)-k:])
	tr, err := stats.TheilSen(x, y)
	if err != nil || !tr.HasInterval() {
		return false, start, end, true
	}
	rise := tr.Slope * (x[len(x)-1] - x[0])
	growing = tr.Lo > 0 && end > start && rise >= max(BacklogRise*start, BacklogMinRise.Seconds())
	return growing, start, end, true
}

// requestSeconds is the time all finished requests spent, from the intended send to
// the answer: by Little's law, divided by Elapsed it is the mean number in flight.
// Without a timeline, a closed loop keeps every connection busy all along.
func (s Summary) requestSeconds() float64 {
	t := float64(s.Tail.Responses) * s.Tail.Latency
	for _, b := range s.Timeline {
		t += float64(b.Responses) * b.Latency
	}
	if t == 0 && s.Mode == Closed {
		t = float64(s.Connections) * s.Elapsed
	}
	return t
}

// waitShares are the shares of the requests' time spent waiting for a pool connection
// and in the server's queue; -1 where not measured. The queue's share is its mean
// length over the mean number of requests in flight (Little's law on both).
func (s Summary) waitShares() (pool, queue float64) {
	pool, queue = -1, -1
	busy := s.requestSeconds()
	if busy <= 0 {
		return pool, queue
	}
	if s.Causes.PoolCounted {
		pool = s.Causes.PoolWaitSeconds / busy
	}
	if s.Causes.QueueSampled && s.Elapsed > 0 {
		queue = s.Causes.QueueMean / (busy / s.Elapsed)
	}
	return pool, queue
}

// share is part over whole, 0 when whole is 0.
func share(part, whole int64) float64 {
	if whole <= 0 {
		return 0
	}
	return float64(part) / float64(whole)
}
