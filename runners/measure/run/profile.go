package run

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"dbbench/runners/measure/loadgen"
	"dbbench/runners/measure/profile"
	"dbbench/runners/measure/target"
	"dbbench/runners/results"
)

// profileSlice measures one profiled slice of rv on its running target, apart from its
// measured slices (profiling costs CPU, so it never enters the figures): the Go
// target's CPU and allocation profiles over its admin listener, or the stacks a PHP
// target's sampling profiler collected, and beside either perf's CPU samples where
// perf runs. The stacks are folded into components, and the raw profiles, collapsed
// stacks and a flame graph written under profiles/.
func (r *runner) profileSlice(ctx context.Context, t *target.Target, rv *results.Variant) error {
	dir := filepath.Join(r.o.Out, "profiles", fileName(rv.Key))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	secs := max(1, int(r.o.ProfileTime.Round(time.Second)/time.Second))
	var s sampled
	done := make(chan struct{})
	go func() { // the profile covers secs inside the load, and the CPU is read around it
		defer close(done)
		select {
		case <-time.After(profileMargin):
			s.take(ctx, t, secs, dir)
		case <-ctx.Done():
		}
	}()
	// perf takes a moment to attach and to stop: the load goes on until after it.
	load := time.Duration(secs)*time.Second + perfAttach + 4*profileMargin
	res, err := loadgen.Run(ctx, r.loadConfig(t, rv, Load{Duration: load}, r.o.Seed^0x70726f66)) // "prof"
	<-done
	if err != nil {
		return fmt.Errorf("profile %s: load: %w", rv.Key, err)
	}
	if s.err != nil {
		return fmt.Errorf("profile %s: %w", rv.Key, s.err)
	}
	// The load ran steadily around the profile: the requests served in the profiled
	// seconds are its rate times them.
	p := &results.Profile{Seconds: float64(secs), Requests: int64(res.QPS * float64(secs)),
		AppCPU: s.cpu.Seconds() / (res.QPS * s.window.Seconds()), Clock: "cpu", Files: map[string]string{}}
	s.readPerf(ctx, t, dir)
	switch {
	case s.perf.p != nil:
		p.Source, p.Matched = s.perf.source, s.perf.matched
		s.perf.requests = int64(res.QPS * time.Duration(s.to-s.from).Seconds())
	case s.stacks != nil:
		p.Clock, p.Source = t.ProfileClock, "excimer"
	default:
		p.Source = "pprof"
	}
	if s.perf.err != nil {
		fmt.Fprintf(r.o.Log, "profile %s: without perf's CPU samples (%s): %v\n", rv.Key, p.Source, s.perf.err)
	}
	if err := r.foldProfiles(rv, dir, s, p); err != nil {
		return fmt.Errorf("profile %s: %w", rv.Key, err)
	}
	rv.Profile = p
	return nil
}

// sampled is what a profiled slice collected: Go's pprof files, PHP's stacks, perf's
// samples, and the target's CPU over the window they cover.
type sampled struct {
	pprofs map[string][]byte
	stacks *profile.Profile // PHP's, from its own profiler
	perf   perfProfile
	cpu    time.Duration // the target's CPU while it was profiled
	window time.Duration
	// from and to bound the window on CLOCK_MONOTONIC (perf's sample times).
	from, to int64
	err      error
}

// take samples secs seconds of t: Go's pprof or PHP's profiler, with perf beside
// (Go always, php-fpm to join its wall-clock stacks with; not a worker, whose CPU
// clock needs no join), and reads the target's CPU around them. perf starts first and
// stops last, and only its samples between the two CPU readings count, so that the
// components and the CPU they are checked against cover the same nanoseconds.
func (s *sampled) take(ctx context.Context, t *target.Target, secs int, dir string) {
	php := t.AdminURL == ""
	if php {
		if _, s.err = t.Profile(ctx); s.err == nil && t.ProfileTimed != nil {
			_, s.err = t.ProfileTimed(ctx) // what came before the window
		}
		if s.err != nil {
			return
		}
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	defer wg.Wait()
	defer close(stop)
	if s.perf.ran = havePerf() && (!php || t.ProfileTimed != nil); s.perf.ran {
		var opts []string
		if !php {
			opts = []string{"-g"} // Go: call graphs through frame pointers
		}
		wg.Go(func() { s.perf.err = recordPerf(ctx, t.PIDs(), stop, dir, opts...) })
		time.Sleep(perfAttach)
	}
	s.from = monoNow()
	before, err := t.Counts(t.PIDs())
	if err != nil {
		s.err = err
		return
	}
	if php {
		time.Sleep(time.Duration(secs) * time.Second)
	} else {
		s.pprofs, s.err = fetchPprof(ctx, t.AdminURL, secs)
	}
	after, err := t.Counts(t.PIDs())
	s.to = monoNow()
	if php && s.err == nil {
		s.stacks, s.err = t.Profile(ctx)
	}
	if err != nil && s.err == nil {
		s.err = err
	}
	if s.err == nil {
		s.cpu, s.window = after.Sub(before).Run, after.At.Sub(before.At)
	}
}

// readPerf reads perf's recording, outside the measured window: for Go its stacks, for
// php-fpm its samples joined with the children's timed stacks.
func (s *sampled) readPerf(ctx context.Context, t *target.Target, dir string) {
	if !s.perf.ran || s.perf.err != nil {
		return
	}
	if t.ProfileTimed == nil {
		s.perf.p, s.perf.err = readPerf(ctx, dir, s.from, s.to)
		s.perf.source = "perf"
		return
	}
	cpu, err := readPerfSamples(ctx, dir, s.from, s.to)
	if err != nil {
		s.perf.err = err
		return
	}
	wall, err := t.ProfileTimed(ctx) // the window's, and the last requests' after it
	if err != nil {
		s.perf.err = err
		return
	}
	s.perf.p, s.perf.matched = profile.JoinCPU(cpu, wall, joinTolerance)
	s.perf.source = "perf+excimer"
}

// joinTolerance is how far from a CPU sample a wall-clock sample of the same process
// may be to give it its stack: two of Excimer's 1 ms periods.
const joinTolerance = 2 * time.Millisecond

// foldProfiles reads the stacks (perf's where there are, else pprof for Go, the
// target's sampled stacks for PHP), folds them into components per request, and writes
// the files.
func (r *runner) foldProfiles(rv *results.Variant, dir string, s sampled, p *results.Profile) error {
	lang := profile.Lang(rv.Lang)
	cpu, requests := s.stacks, p.Requests
	if s.pprofs != nil {
		var err error
		if cpu, err = r.goProfiles(dir, s.pprofs, lang, p); err != nil {
			return err
		}
	}
	if s.stacks != nil { // as pprof too, so that Go's viewers open it
		kind, sampleType := "cpu", profile.CPU
		switch {
		case s.perf.p != nil: // php-fpm: cpu.pb.gz is the joined profile below
			kind, sampleType = "wall", "wall"
		case p.Clock == "real":
			sampleType = "wall"
		}
		if err := r.writePprof(dir, kind, s.stacks, sampleType, p); err != nil {
			return err
		}
	}
	if s.perf.p != nil { // the components come from perf's samples
		kind := "perf"
		if s.stacks != nil {
			kind = "cpu"
		}
		if err := r.writePprof(dir, kind, s.perf.p, profile.CPU, p); err != nil {
			return err
		}
		cpu, requests = s.perf.p, s.perf.requests
	}
	if cpu == nil {
		return fmt.Errorf("the target offers no profile")
	}
	var err error
	if p.Components, err = perRequest(cpu, lang, requests, 1e-9); err != nil {
		return err
	}
	return r.writeStacks(rv, dir, cpu, lang, p)
}

// goProfiles writes Go's pprof files and folds the allocations; it returns the CPU
// profile.
func (r *runner) goProfiles(dir string, pprofs map[string][]byte, lang profile.Lang, p *results.Profile) (*profile.Profile, error) {
	for kind, b := range pprofs {
		if err := r.writeProfileFile(dir, kind+".pb.gz", b, p, kind); err != nil {
			return nil, err
		}
	}
	cpu, err := profile.ReadPprof(bytes.NewReader(pprofs["cpu"]), profile.CPU)
	if err != nil {
		return nil, err
	}
	alloc, err := profile.ReadPprof(bytes.NewReader(pprofs["alloc"]), profile.AllocSpace)
	if err != nil {
		return nil, err
	}
	if p.Allocs, err = perRequest(alloc, lang, p.Requests, 1); err != nil {
		return nil, err
	}
	return cpu, nil
}

func (r *runner) writePprof(dir, kind string, pr *profile.Profile, sampleType string, p *results.Profile) error {
	var pb bytes.Buffer
	if err := profile.WritePprof(&pb, pr, sampleType); err != nil {
		return err
	}
	return r.writeProfileFile(dir, kind+".pb.gz", pb.Bytes(), p, kind)
}

// writeStacks writes the profile's collapsed stacks and its flame graph.
func (r *runner) writeStacks(rv *results.Variant, dir string, cpu *profile.Profile, lang profile.Lang, p *results.Profile) error {
	var col, flame bytes.Buffer
	if err := profile.WriteCollapsed(&col, cpu); err != nil {
		return err
	}
	if err := r.writeProfileFile(dir, "cpu.collapsed", col.Bytes(), p, "collapsed"); err != nil {
		return err
	}
	title := fmt.Sprintf("%s: CPU, %d requests", rv.Key, p.Requests)
	if p.Clock == "real" {
		title = fmt.Sprintf("%s: wall time of requests in progress, %d requests", rv.Key, p.Requests)
	}
	if err := profile.WriteFlameGraph(&flame, cpu, profile.FlameOptions{Title: title, Lang: lang}); err != nil {
		return err
	}
	return r.writeProfileFile(dir, "flame.svg", flame.Bytes(), p, "flame")
}

// perRequest folds a profile into components, per request, in the profile's unit
// times scale (CPU nanoseconds × 1e-9 = seconds).
func perRequest(pr *profile.Profile, lang profile.Lang, requests int64, scale float64) (map[string]float64, error) {
	f, err := profile.Fold(pr, lang)
	if err != nil {
		return nil, err
	}
	per, err := f.Per(requests)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for c, x := range per {
		out[c.Label()] = x * scale
	}
	return out, nil
}

func (r *runner) writeProfileFile(dir, name string, b []byte, p *results.Profile, kind string) error {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return err
	}
	rel, err := filepath.Rel(r.o.Out, path)
	if err != nil {
		return err
	}
	p.Files[kind] = rel
	return nil
}

// perfProfile is what perf sampled of a target in the window: its stacks and the
// requests served in it, or why perf failed.
type perfProfile struct {
	ran      bool
	p        *profile.Profile
	requests int64
	source   string  // "perf" (Go) or "perf+excimer" (php-fpm)
	matched  float64 // php-fpm: the share of its CPU that found a PHP stack
	err      error
}

// profileMargin is load before and after the profiled seconds, so the profile sees the
// load steady and whole (pprof counts whole seconds).
const profileMargin = 250 * time.Millisecond

// fetchPprof asks a Go target's admin listener for its CPU profile and the allocations
// of the next secs seconds, at once, and returns them by kind.
func fetchPprof(ctx context.Context, admin string, secs int) (map[string][]byte, error) {
	d := time.Duration(secs) * time.Second
	kinds := map[string]string{"cpu": "/debug/pprof/profile", "alloc": "/debug/pprof/allocs"}
	type got struct {
		kind string
		b    []byte
		err  error
	}
	ch := make(chan got, len(kinds))
	client := &http.Client{Timeout: d + 30*time.Second}
	for kind, path := range kinds {
		go func() {
			b, err := httpGet(ctx, client, fmt.Sprintf("%s%s?seconds=%d", admin, path, secs))
			ch <- got{kind, b, err}
		}()
	}
	out := map[string][]byte{}
	for range kinds {
		g := <-ch
		if g.err != nil {
			return nil, fmt.Errorf("pprof %s: %w", g.kind, g.err)
		}
		out[g.kind] = g.b
	}
	return out, nil
}

func httpGet(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	return b, nil
}

// fileName turns a variant key into a file name: lang-go_server-nethttp_….
func fileName(key string) string {
	return strings.NewReplacer("/", "_", "=", "-").Replace(key)
}
