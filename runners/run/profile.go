package run

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"dbbench/runners/loadgen"
	"dbbench/runners/procstat"
	"dbbench/runners/profile"
	"dbbench/runners/results"
	"dbbench/runners/target"
)

// profileSlice measures one profiled slice of rv on its running target, apart from its
// measured slices (profiling costs CPU, so it never enters the figures): the Go
// target's CPU and allocation profiles over its admin listener, or the stacks a PHP
// target's sampling profiler collected. The stacks are folded into components, and the
// raw profiles, collapsed stacks and a flame graph written under profiles/.
func (r *runner) profileSlice(ctx context.Context, t *target.Target, rv *results.Variant) error {
	d := r.o.ProfileTime
	dir := filepath.Join(r.o.Out, "profiles", fileName(rv.Key))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var pprofs map[string][]byte
	var stacks *profile.Profile // PHP's
	var perf perfProfile        // Go's, when perf runs here
	var cpu time.Duration       // the target's CPU while it was profiled
	var window time.Duration
	var profErr error
	done := make(chan struct{})
	secs := max(1, int(d.Round(time.Second)/time.Second))
	go func() { // the profile covers secs inside the load, and the CPU is read around it
		defer close(done)
		select {
		case <-time.After(profileMargin):
		case <-ctx.Done():
			return
		}
		before, err := procstat.TakeCounts(t.PIDs()...)
		if err != nil {
			profErr = err
			return
		}
		if t.AdminURL != "" { // Go: pprof samples now, and perf beside it
			var wg sync.WaitGroup
			if perf.ran = havePerf(); perf.ran {
				wg.Go(func() { perf.err = recordPerf(ctx, t.PIDs(), secs, dir) })
			}
			pprofs, profErr = fetchPprof(ctx, t.AdminURL, secs)
			wg.Wait()
		} else { // PHP: the profiler samples all along; keep what it saw in the window
			if _, profErr = t.Profile(ctx); profErr != nil {
				return
			}
			time.Sleep(time.Duration(secs) * time.Second)
			stacks, profErr = t.Profile(ctx)
		}
		after, err := procstat.TakeCounts(t.PIDs()...)
		if err != nil && profErr == nil {
			profErr = err
		}
		if profErr == nil {
			cpu, window = after.Sub(before).Run, after.At.Sub(before.At)
		}
	}()
	// perf takes a moment to attach and to stop: the load goes on until after it.
	load := time.Duration(secs)*time.Second + 4*profileMargin
	res, err := loadgen.Run(ctx, r.loadConfig(t, rv, Load{Duration: load}, r.o.Seed^0x70726f66)) // "prof"
	<-done
	if perf.ran && perf.err == nil && profErr == nil {
		perf.p, perf.span, perf.err = readPerf(ctx, dir)
	}
	if err != nil {
		return fmt.Errorf("profile %s: load: %w", rv.Key, err)
	}
	if profErr != nil {
		return fmt.Errorf("profile %s: %w", rv.Key, profErr)
	}
	// The load ran steadily around the profile: the requests served in the profiled
	// seconds are its rate times them.
	p := &results.Profile{Seconds: float64(secs), Requests: int64(res.QPS * float64(secs)),
		AppCPU: cpu.Seconds() / (res.QPS * window.Seconds()), Clock: "cpu", Files: map[string]string{}}
	switch {
	case stacks != nil:
		p.Clock, p.Source = t.ProfileClock, "excimer"
	case perf.p != nil:
		p.Source = "perf"
		perf.requests = int64(res.QPS * perf.span.Seconds())
	default:
		p.Source = "pprof"
		if perf.err != nil {
			fmt.Fprintf(r.o.Log, "profile %s: components from Go's profiler, which misses some CPU: %v\n", rv.Key, perf.err)
		}
	}
	if err := r.foldProfiles(rv, dir, pprofs, stacks, perf, p); err != nil {
		return fmt.Errorf("profile %s: %w", rv.Key, err)
	}
	rv.Profile = p
	return nil
}

// foldProfiles reads the stacks (pprof for Go, the target's sampled stacks for PHP),
// folds them into components per request, and writes the files.
func (r *runner) foldProfiles(rv *results.Variant, dir string, pprofs map[string][]byte, stacks *profile.Profile, perf perfProfile, p *results.Profile) error {
	lang := profile.Lang(rv.Lang)
	var cpu *profile.Profile
	var err error
	requests := p.Requests
	switch {
	case pprofs != nil:
		for kind, b := range pprofs {
			if err := r.writeProfileFile(dir, kind+".pb.gz", b, p, kind); err != nil {
				return err
			}
		}
		if cpu, err = profile.ReadPprof(bytes.NewReader(pprofs["cpu"]), profile.CPU); err != nil {
			return err
		}
		alloc, err := profile.ReadPprof(bytes.NewReader(pprofs["alloc"]), profile.AllocSpace)
		if err != nil {
			return err
		}
		if p.Allocs, err = perRequest(alloc, lang, p.Requests, 1); err != nil {
			return err
		}
		if perf.p != nil { // the components come from perf's samples, kernel frames included
			var pb bytes.Buffer
			if err := profile.WritePprof(&pb, perf.p, profile.CPU); err != nil {
				return err
			}
			if err := r.writeProfileFile(dir, "perf.pb.gz", pb.Bytes(), p, "perf"); err != nil {
				return err
			}
			cpu, requests = perf.p, perf.requests
		}
	case stacks != nil:
		cpu = stacks
		// As pprof too, so that Go's viewers open it (go tool pprof -top cpu.pb.gz).
		var pb bytes.Buffer
		sampleType := map[string]string{"real": "wall"}[p.Clock]
		if err := profile.WritePprof(&pb, stacks, cmp.Or(sampleType, profile.CPU)); err != nil {
			return err
		}
		if err := r.writeProfileFile(dir, "cpu.pb.gz", pb.Bytes(), p, "cpu"); err != nil {
			return err
		}
	default:
		return fmt.Errorf("the target offers no profile")
	}
	if p.Components, err = perRequest(cpu, lang, requests, 1e-9); err != nil {
		return err
	}
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

// perfProfile is what perf sampled of a Go target: its stacks, the time they span and
// the requests served in it, or why perf failed.
type perfProfile struct {
	ran      bool
	p        *profile.Profile
	span     time.Duration
	requests int64
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
