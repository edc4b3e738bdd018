package soak

import (
	"context"
	"fmt"
	"sync"
	"time"

	"dbbench/runners/histogram"
	"dbbench/runners/measure/loadgen"
	"dbbench/runners/measure/run"
)

// loadConfig is the generator of variant i.
func (s *soaker) loadConfig(i int) loadgen.Config {
	return loadgen.Config{
		Target: s.targets[i].URL, Rows: uint32(s.db.Rows), Connections: s.o.connections(s.o.Variants[i]),
		Check: func(q loadgen.Request, body []byte) error { return run.CheckUser(q.ID, body) },
	}
}

// measureCapacity loads every target at once, closed loop, first for CapacityWarmup
// (not recorded), then for CapacityTime: each variant's capacity is what it achieved
// while all the others were loaded too, which is how it will be served.
func (s *soaker) measureCapacity(ctx context.Context) error {
	if s.o.CapacityWarmup > 0 {
		fmt.Fprintf(s.o.Log, "soak: warming up every target at once for %v\n", s.o.CapacityWarmup)
		if _, err := s.together(ctx, s.o.CapacityWarmup, 0x7761726d); err != nil { // "warm"
			return err
		}
	}
	fmt.Fprintf(s.o.Log, "soak: measuring capacity, every target at once, closed loop for %v, sampled every %v as the soak will be\n", s.o.CapacityTime, s.o.Interval)
	res, err := s.whileSampling(ctx, func() ([]*loadgen.Result, error) {
		return s.together(ctx, s.o.CapacityTime, 0x636170) // "cap"
	})
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range res {
		v := s.file.Variants[i]
		errs := r.ErrorCount()
		v.Capacity = &Capacity{QPS: r.QPS, Requests: r.Requests, Errors: errs,
			P99: histogram.Summarize(r.Latency).P99.Seconds(), Seconds: r.Elapsed.Seconds()}
		if r.Requests == 0 || float64(errs)/float64(r.Requests) > MaxErrorRate || r.QPS < 1 {
			return fmt.Errorf("%s cannot be soaked: in the capacity phase %d of %d requests failed (%s)",
				v.Key, errs, r.Requests, describeErrors(r))
		}
		v.Rate = s.o.RateFraction * r.QPS
		fmt.Fprintf(s.o.Log, "soak: %s: capacity %.0f req/s, served at %.0f req/s\n", v.Key, r.QPS, v.Rate)
	}
	return nil
}

// whileSampling runs measure while every role is sampled every Interval into a scratch
// file, as the soak will sample: the sampler's own CPU (every process tree's /proc, the
// TCP table), a large share of the machine at a 90-s soak's 3-s interval, is then inside
// the capacity the rate is a fraction of, as it is inside the soak.
func (s *soaker) whileSampling(ctx context.Context, measure func() ([]*loadgen.Result, error)) ([]*loadgen.Result, error) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		scratch, start := s.scratch(), time.Now()
		tick := time.NewTicker(s.o.Interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				s.sampleInto(ctx, scratch, time.Since(start).Seconds())
			}
		}
	})
	res, err := measure()
	close(done)
	wg.Wait()
	return res, err
}

// together runs a closed-loop load against every target at once for d.
func (s *soaker) together(ctx context.Context, d time.Duration, salt uint64) ([]*loadgen.Result, error) {
	out := make([]*loadgen.Result, len(s.targets))
	errs := make([]error, len(s.targets))
	var wg sync.WaitGroup
	for i := range s.targets {
		cfg := s.loadConfig(i)
		cfg.Duration, cfg.Seed = d, s.o.Seed^salt+uint64(i)
		wg.Go(func() { out[i], errs[i] = loadgen.Run(ctx, cfg) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.o.Variants[i].Key(), err)
		}
	}
	return out, nil
}

// soak serves every variant open loop at its rate for Duration, in consecutive windows
// of Interval, and samples every role every Interval.
func (s *soaker) soak(ctx context.Context) error {
	s.started = time.Now()
	end := s.started.Add(s.o.Duration)
	fmt.Fprintf(s.o.Log, "soak: serving %d variants at once for %v, %d samples, one every %v, the first %v excluded as warm-up; results in %s\n",
		len(s.targets), s.o.Duration, plannedSamples(s.o.Duration, s.o.Interval), s.o.Interval, s.o.Warmup, s.o.Out)
	var wg sync.WaitGroup
	loadErrs := make([]error, len(s.targets))
	for i := range s.targets {
		wg.Go(func() { loadErrs[i] = s.serve(ctx, i, end) })
	}
	sampleErr := s.sampleUntil(ctx, end)
	wg.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if sampleErr != nil {
		return sampleErr
	}
	for _, err := range loadErrs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Windows and samples keep to one grid, so a sample never falls between two windows
// (when the generator's connections are closed and the target's descriptors and
// goroutines dip): window k sends from k·Interval until windowGap before (k+1)·Interval,
// and sample k is taken at (k+½)·Interval, in the middle of window k.
func windowGap(interval time.Duration) time.Duration { return min(interval/20, 250*time.Millisecond) }

// serve runs variant i's windows until end. A window cut short by the context is not
// recorded: it is not a window of Interval.
func (s *soaker) serve(ctx context.Context, i int, end time.Time) error {
	v := s.file.Variants[i] // Rate and Key are not written after the capacity phase
	for k := 0; ; k++ {
		from := s.started.Add(time.Duration(k) * s.o.Interval)
		if !from.Before(end) {
			return nil
		}
		if !sleepUntil(ctx, from) {
			return nil
		}
		d := min(time.Until(from.Add(s.o.Interval-windowGap(s.o.Interval))), time.Until(end))
		if d < s.o.Interval/2 {
			continue // the last window ran late into this one: skip to the next
		}
		cfg := s.loadConfig(i)
		cfg.Rate, cfg.Duration = v.Rate, d
		cfg.Seed = s.o.Seed + uint64(i)<<32 + uint64(k)
		res, err := loadgen.Run(ctx, cfg)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: load window %d: %w", v.Key, k+1, err)
		}
		w := Window{T: time.Since(s.started).Seconds(), Seconds: d.Seconds(), Offered: v.Rate,
			Achieved: float64(res.OK) / d.Seconds(), Requests: res.Requests, OK: res.OK, Unsent: res.Unsent,
			P99: histogram.Summarize(res.Latency).P99.Seconds()}
		for class, n := range res.Errors {
			if n > 0 {
				if w.Errors == nil {
					w.Errors = map[string]int64{}
				}
				w.Errors[class] = n
			}
		}
		s.mu.Lock()
		v.addWindow(w)
		s.mu.Unlock()
	}
}

// sampleUntil samples every role in the middle of every window, writing soak.json after
// each sample. A sample no longer due (sampleDue) is skipped, and said so.
func (s *soaker) sampleUntil(ctx context.Context, end time.Time) error {
	planned := plannedSamples(s.o.Duration, s.o.Interval)
	for k := 0; ; k++ {
		at := s.started.Add(sampleAt(k, s.o.Interval))
		if !at.Before(end) {
			return nil
		}
		if !sleepUntil(ctx, at) {
			return nil
		}
		if now := time.Now(); !sampleDue(at, now, end, s.o.Interval) {
			if !now.Before(end) {
				return nil
			}
			fmt.Fprintf(s.o.Log, "soak: sample %d of %d skipped: the one before took until %.1f s, %v after this one's time: the machine is too busy to sample every %v\n",
				k+1, planned, now.Sub(s.started).Seconds(), now.Sub(at).Round(time.Millisecond), s.o.Interval)
			continue
		}
		s.sample(ctx, time.Since(s.started).Seconds())
		if err := s.write(); err != nil {
			return err
		}
		fmt.Fprintln(s.o.Log, progressLine(k+1, planned, time.Since(s.started), time.Until(end)))
	}
}

// sampleDue says whether a sample scheduled at at is still taken at now: before the
// soak's end and at most a quarter interval late. A sample taken later would fall
// between two windows (the generator's connections closed, descriptors and goroutines
// dipping) or after the load stopped: on a busy machine the samples of a 90-s soak fell
// behind by seconds, and its last ten were taken in one burst after the end, the
// planted leak's descriptors flat across them, so the leak went unseen.
func sampleDue(at, now, end time.Time, interval time.Duration) bool {
	return now.Before(end) && now.Sub(at) <= interval/4
}

// sampleAt is when sample k (from 0) is taken after the soak starts: in the middle of
// window k.
func sampleAt(k int, interval time.Duration) time.Duration {
	return time.Duration(k)*interval + interval/2
}

// plannedSamples is how many samples a soak of duration takes, on sampleAt's grid.
func plannedSamples(duration, interval time.Duration) int {
	n := 0
	for sampleAt(n, interval) < duration {
		n++
	}
	return n
}

// progressLine says where the soak is after sample n of planned: the soak's end is
// fixed, so the time left is the time until it, not a pace.
func progressLine(n, planned int, spent, left time.Duration) string {
	return fmt.Sprintf("[soak sample %d of %d] %s spent, about %s left", n, planned,
		spent.Round(time.Second), max(left, 0).Round(time.Second))
}

// sleepUntil waits for t; false when ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// describeErrors is the capacity phase's errors, or why there were none to name.
func describeErrors(r *loadgen.Result) string {
	if s := r.ErrorSummary(); s != "" {
		return s
	}
	return "no request finished"
}
