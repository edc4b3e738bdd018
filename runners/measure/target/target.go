// Package target starts and stops the process (or processes) that serve one variant,
// through the launcher the matrix names for the variant's language and server: the Go
// server binary, nginx + php-fpm, or resident PHP workers. The runner, `dbbench serve`
// and the integration tests all start targets through Start; nothing else names a binary.
package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/freeport"
	"dbbench/runners/measure/procstat"
	"dbbench/runners/measure/profile"
	"dbbench/runners/measure/remote"
)

// Options say where a target finds what it needs.
type Options struct {
	DSNFile  string    // file holding the full DSN on one line (mode 0600)
	Listen   string    // HTTP address; "" or a port of 0 picks a free loopback port
	RepoRoot string    // the repository (php/ templates live there)
	BinDir   string    // where `make build` put gotarget; "" means RepoRoot/bin
	RunDir   string    // scratch directory for configs and logs; "" means a new temp dir
	Log      io.Writer // start/stop lines; nil means os.Stderr
	// Profile starts the target ready to be profiled, where profiling needs it at start:
	// PHP loads Excimer and samples every process, Target.Profile reads the stacks. Go's
	// pprof is always on. Never for a measured slice: sampling costs CPU.
	Profile bool
	// Host is where the target's processes run and listen; nil: here, on loopback.
	// (runners/measure/topology's app role in a network namespace is one.)
	Host Host
	// From is the address the runner's requests come from, which a PHP target's
	// status page admits besides 127.0.0.1; "" when the runner is on the same loopback.
	From string
	// Remote, when set, is the host reached over SSH where a Go target runs (its binary
	// copied there); Host is then unused. PHP targets do not run there.
	Remote *remote.Host
}

// Host is where a target runs.
type Host interface {
	// Command is exec.Command there; the process's PID is this host's.
	Command(bin string, args ...string) *exec.Cmd
	// FreeAddr is IP:PORT there, reachable from the runner, that nothing listens on.
	FreeAddr() (string, error)
	// FreeLoopback is 127.0.0.1:PORT there that nothing listens on: for what only the
	// host itself may reach (a Go target's pprof).
	FreeLoopback() (string, error)
	// Forward makes a loopback address there reachable here; stop ends it.
	Forward(addr string) (local string, stop func() error, err error)
}

// here is the default Host: this machine's loopback.
type here struct{}

func (here) Command(bin string, args ...string) *exec.Cmd { return exec.Command(bin, args...) }
func (here) FreeAddr() (string, error)                    { return FreeAddr() }
func (here) FreeLoopback() (string, error)                { return FreeAddr() }
func (here) Forward(addr string) (string, func() error, error) {
	return addr, func() error { return nil }, nil
}

// host is o.Host, or here.
func (o Options) host() Host {
	if o.Host == nil {
		return here{}
	}
	return o.Host
}

// Target is one running variant.
type Target struct {
	Variant  matrix.Variant
	URL      string // http://127.0.0.1:PORT, no trailing slash
	AdminURL string // Go only: DBStats and pprof; "" for PHP
	Log      string // the file the target's own errors go to; "" when they come to Options.Log
	// Runtime reads what the target's runtime counts about itself; nil when it counts
	// nothing the runner reads.
	Runtime func(ctx context.Context) (RuntimeSample, error)
	// Memory reads the bytes the target's runtime holds between requests, as it counts
	// them itself: a resident PHP worker's memory_get_usage(), summed over its workers.
	// nil where the runner reads it otherwise (Go's live heap, from AdminURL's metrics)
	// or nothing outlives a request (php-fpm).
	Memory func(ctx context.Context) (float64, error)
	// Said is the target's last database error, the cause a 503 stands for, scrubbed of
	// secrets ("" before any); nil where the runner does not keep it (PHP's).
	Said func() string
	// Holds times, in the target, how long each request served alone held the pool's
	// resource: a Go target's connections (its pool counters on AdminURL), a php-fpm
	// child (its status page); nil where the target times none (resident workers).
	Holds HoldTimer
	// Profile returns the stacks the target sampled since it started (or since the
	// last call), in nanoseconds of the clock ProfileClock names; nil unless the target
	// can (started with Profile, and not Go: Go's profiles come from pprof on AdminURL).
	Profile func(ctx context.Context) (*profile.Profile, error)
	// ProfileTimed returns the wall-clock samples of php-fpm's children since the
	// previous call, each with its time and process, for a CPU profile joined with
	// perf's samples (profile.JoinCPU); nil for any other target.
	ProfileTimed func(ctx context.Context) ([]profile.TimedStack, error)
	// ProfileClock is what Profile's nanoseconds are, named as Excimer names its clocks:
	// "cpu" (the processes' CPU time) or "real" (wall time of requests in progress,
	// waits for the database included).
	ProfileClock string
	pids         func() []int
	// workers lists the processes a PHP target's pool is made of (php-fpm's children,
	// the resident workers); nil for Go, whose pool is connections.
	workers func() []int
	alive   func() error
	stop    func() error
	// proc reads the /proc of the target's host for pids at once; nil: this host's.
	proc func(pids []int) (procstat.FS, error)
	// resetRSS resets the peak RSS of pids on the target's host; nil: here.
	resetRSS func(pids []int) error
}

// HoldTimer times requests served one at a time: Start before the first, Next after
// each, which gives that request's hold.
type HoldTimer interface {
	Start(ctx context.Context) error
	Next(ctx context.Context) (time.Duration, error)
}

// Counts reads the counters of the target's processes pids (procstat.TakeCounts) on
// the host they run on.
func (t *Target) Counts(pids []int) (*procstat.Counts, error) {
	fsys, err := t.procFS(pids)
	if err != nil {
		return nil, err
	}
	return procstat.TakeCountsIn(fsys, pids...)
}

// PeakRSS is the sum of the peak resident sets of pids (procstat.PeakRSS) on the
// target's host.
func (t *Target) PeakRSS(pids []int) (int64, error) {
	fsys, err := t.procFS(pids)
	if err != nil {
		return 0, err
	}
	return procstat.PeakRSSIn(fsys, pids...)
}

// WorkerMemory is the median private memory (procstat.PrivateBytes) of the processes
// a PHP target's pool is made of, and how many there are: what one more php-fpm child
// or worker costs the host. n is 0 for a target whose pool is not processes (Go).
func (t *Target) WorkerMemory() (median int64, n int, err error) {
	if t.workers == nil {
		return 0, 0, nil
	}
	pids := t.workers()
	fsys, err := t.procFS(pids)
	if err != nil {
		return 0, 0, err
	}
	var each []int64
	for _, pid := range pids {
		b, err := procstat.PrivateBytes(fsys, pid)
		if errors.Is(err, procstat.ErrNotFound) {
			continue // a child php-fpm replaced meanwhile
		}
		if err != nil {
			return 0, 0, err
		}
		each = append(each, b)
	}
	if len(each) == 0 {
		return 0, 0, nil
	}
	slices.Sort(each)
	return each[len(each)/2], len(each), nil
}

// ResetPeakRSS starts the peak resident sets of pids anew (procstat.ResetPeakRSS).
func (t *Target) ResetPeakRSS(pids []int) error {
	if t.resetRSS != nil {
		return t.resetRSS(pids)
	}
	return procstat.ResetPeakRSS(pids...)
}

func (t *Target) procFS(pids []int) (procstat.FS, error) {
	if t.proc == nil {
		return procstat.Local, nil
	}
	return t.proc(pids)
}

// RuntimeSample is what a target's runtime says of itself. Cumulative counters (Go's
// heap allocations: "allocs", "B", "gc-cycles") grow with the requests served: the
// runner reports their growth over a measured window per request, as NAME/op.
// PerRequest figures are already per request (PHP's peak memory of a request:
// "req-peak-B"), reported as NAME/op.
type RuntimeSample struct {
	Cumulative map[string]float64
	PerRequest map[string]float64
}

// Alive says whether every process the target started is still running: a target
// whose master died may still answer through orphaned workers, but it is not the
// variant any more.
func (t *Target) Alive() error {
	if t.alive == nil {
		return nil
	}
	return t.alive()
}

// PIDs lists every process serving the variant right now (for PHP: nginx master and
// workers, php-fpm master and children), so the runner can sum their CPU time.
func (t *Target) PIDs() []int { return t.pids() }

// Stop ends every process of the target and removes what it wrote. Safe to call twice.
func (t *Target) Stop() error {
	if t == nil || t.stop == nil {
		return nil
	}
	f := t.stop
	t.stop = nil
	return f()
}

// Launcher starts the targets of one server of a language (matrix.yaml names it).
type Launcher interface {
	// Start launches the target of s and returns once GET /hello answers 200.
	Start(ctx context.Context, s matrix.Spec, o Options) (*Target, error)
	// Describe asks the target code which layers it serves, with their modes.
	Describe(o Options) (*Description, error)
	// Environment names the versions a measurement depends on: the runtime's, and for
	// each layer of lang that uses the database, its library's (Layer.VersionOf), under
	// the key LayerKey(lang, layer).
	Environment(o Options, lang string, layers []*matrix.Layer) map[string]string
}

// launchers are the launchers by the name matrix.yaml gives them.
var launchers = map[string]Launcher{
	"go":         goLauncher{},
	"php-fpm":    fpmLauncher{},
	"php-worker": workerLauncher{},
}

// LauncherOf returns the launcher of a server, or an error naming the known ones.
func LauncherOf(s *matrix.Server) (Launcher, error) {
	l, ok := launchers[s.Launcher]
	if !ok {
		return nil, fmt.Errorf("target: server %s: unknown launcher %q (runners/measure/target knows %s)", s.Name, s.Launcher, strings.Join(slices.Sorted(maps.Keys(launchers)), ", "))
	}
	return l, nil
}

// LayerKey is the environment key of a layer's library version: go-orm, php-builder.
func LayerKey(lang, layer string) string { return lang + "-" + layer }

// Start launches the target of s and returns once GET /hello answers 200.
func Start(ctx context.Context, s matrix.Spec, o Options) (*Target, error) {
	if o.Log == nil {
		o.Log = os.Stderr
	}
	l, err := LauncherOf(s.Server)
	if err != nil {
		return nil, err
	}
	// A port picked free can still be taken before the target binds it (by another
	// listener starting at the same moment): then pick again. (A port the caller named
	// that is taken fails the same way each time.)
	for attempt := 1; ; attempt++ {
		t, err := startOnce(ctx, l, s, o)
		if err == nil || attempt == 3 || !strings.Contains(strings.ToLower(err.Error()), "address already in use") {
			return t, err
		}
		fmt.Fprintf(o.Log, "target %s: a port picked free was taken before the target bound it; picking again\n", s.Key())
	}
}

// startOnce is a variable so the retry above can be tested without a port race.
var startOnce = func(ctx context.Context, l Launcher, s matrix.Spec, o Options) (*Target, error) {
	return l.Start(ctx, s, o)
}

// FreeAddr returns a loopback address with a port nobody listens on right now, outside
// the range outgoing connections take their ports from (see package freeport).
func FreeAddr() (string, error) {
	addr, err := freeport.Addr()
	if err != nil {
		return "", fmt.Errorf("target: %w", err)
	}
	return addr, nil
}

// listenAddr turns "" into a free address of the target's host and a port of 0 into a
// free port on the host given. (startGo uses it too.)
func listenAddr(o Options) (string, error) {
	addr := o.Listen
	if addr == "" {
		return o.host().FreeAddr()
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("target: listen address %q: %w", addr, err)
	}
	if port != "0" {
		return addr, nil
	}
	if host == "127.0.0.1" {
		return FreeAddr()
	}
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", fmt.Errorf("target: find a free port on %s: %w", host, err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// WaitHealthy polls url until it answers 200, exited is closed (the process died), or
// timeout passes.
func WaitHealthy(ctx context.Context, url string, exited <-chan struct{}, timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("target: %s not healthy after %v (last: %v)", url, timeout, statusOrErr(resp, err))
		}
		select {
		case <-exited:
			return fmt.Errorf("target: process exited before %s answered", url)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func statusOrErr(resp *http.Response, err error) string {
	if err != nil {
		return err.Error()
	}
	return resp.Status
}
