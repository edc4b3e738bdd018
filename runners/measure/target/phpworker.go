package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/loglines"
	"dbbench/runners/measure/procstat"
	"dbbench/runners/measure/profile"
)

// workerStopTimeout is longer than the worker server's own drain (10 s, php/README.md),
// so a master that is draining is not killed in the middle of it.
const workerStopTimeout = 15 * time.Second

// workerLauncher runs a PHP variant as resident workers: php/bin/worker.php, a master
// and pool pre-forked PHP CLI workers that build the app once and keep it.
type workerLauncher struct{}

// Describe runs php/bin/describe.php: both PHP servers serve the same layer classes.
func (workerLauncher) Describe(o Options) (*Description, error) { return describePHP(o) }

// Environment records PHP and each layer's Debian package.
func (workerLauncher) Environment(o Options, lang string, layers []*matrix.Layer) map[string]string {
	return phpEnvironment(o, lang, layers)
}

// Start renders php.ini for the CLI into a private directory, starts the worker server
// in the foreground as our child, and returns once GET /hello answers.
func (workerLauncher) Start(ctx context.Context, spec matrix.Spec, o Options) (_ *Target, err error) {
	v := spec.Variant
	p, err := setUpPHP(spec, o, []string{"php8.2", "php"})
	if err != nil {
		return nil, err
	}
	dbEnv, phpBin, phpDir, listen, dir := p.dbEnv, p.bins[0], p.phpDir, p.listen, p.dir
	w := &workerServer{dir: dir}
	defer func() {
		if err != nil {
			w.stop()
		}
	}()
	ini := filepath.Join(dir, "php.ini")
	conf := phpConf{Dir: dir, PHPDir: phpDir, CLI: true, Driver: p.driver()}
	var stacks *stackReader
	if o.Profile {
		if stacks, err = profileDir(dir, &conf, workerProfileClock); err != nil {
			return nil, err
		}
	}
	if err := renderPHPTemplate(filepath.Join(phpDir, "conf", "php.ini.tmpl"), ini, conf); err != nil {
		return nil, err
	}
	status := filepath.Join(dir, "status")
	if err := os.Mkdir(status, 0o700); err != nil {
		return nil, fmt.Errorf("php worker: %w", err)
	}
	args := []string{"-c", ini, filepath.Join(phpDir, "bin", "worker.php"),
		"--listen", listen, "--workers", strconv.Itoa(v.Pool), "--status-dir", status}
	// The CLI has no clear_env: it sees exactly this environment.
	env := append([]string{phpPath, "PHP_INI_SCAN_DIR=", "DBBENCH_SERVER=worker",
		"DBBENCH_LAYER=" + spec.Layer.TargetName(), "DBBENCH_STMT=" + v.Stmt, "DBBENCH_CONN=" + v.Conn}, dbEnv...)
	if stacks != nil {
		env = append(env, profileEnv(conf)...)
	}
	if w.master, err = startPHPProc(o.host(), phpBin, args, env, filepath.Join(dir, "php-worker.log")); err != nil {
		return nil, err
	}
	url := "http://" + listen
	if err := WaitHealthy(ctx, url+"/hello", w.master.done, phpHealthTimeout); err != nil {
		return nil, fmt.Errorf("php worker %s: %w; php-worker.log: %s", v.Key(), err, w.logTail())
	}
	fmt.Fprintf(o.Log, "php worker %s on %s (master pid %d, dir $TMPDIR/%s)\n", v.Key(), url, w.master.cmd.Process.Pid, filepath.Base(dir))
	t := &Target{Variant: v, URL: url, Log: filepath.Join(dir, "php-worker.log"), pids: w.pids, alive: w.alive, stop: w.stop,
		workers: w.workerPIDs, Runtime: w.runtime, Memory: w.memory}
	t.Said = func() string { return lastDatabaseError(t.Log) }
	if stacks != nil {
		// Each worker keeps its stacks in memory and writes them on SIGUSR2 (with its
		// status dump) and at exit.
		t.Profile = func(ctx context.Context) (*profile.Profile, error) {
			if _, err := w.dump(ctx); err != nil {
				return nil, err
			}
			return stacks.read()
		}
		t.ProfileClock = workerProfileClock
	}
	return t, nil
}

// workerStatus is a worker's status dump, status/<pid>.json (php/src/Server/StatusDump.php).
type workerStatus struct {
	PID      int   `json:"pid"`
	Requests int64 `json:"requests"`
	// LastPeak is memory_get_peak_usage() over the last request: the most bytes the
	// process's PHP values held at once, the resident app included.
	LastPeak float64 `json:"last_request_peak_memory"`
	// LastRealPeak is memory_get_peak_usage(true): what PHP's allocator held from the
	// system meanwhile, in 2 MiB chunks, as php-fpm's "last request memory".
	LastRealPeak float64 `json:"last_request_peak_real_memory"`
	// Memory is memory_get_usage() at the dump, between requests: what the resident
	// app keeps from one request to the next.
	Memory float64 `json:"memory"`
	Dumped float64 `json:"dumped"` // Unix seconds, to the microsecond
}

// workerDumpTimeout bounds the wait for every worker's dump: a worker writes it between
// two requests, so only a request far slower than ours would hold it up.
const workerDumpTimeout = 5 * time.Second

// runtime signals the master (SIGUSR2: every worker writes its status file) and reads
// each worker's fresh dump: Cumulative "requests", PerRequest "req-peak-B" (the mean over
// the workers of their last request's real peak, the measure php-fpm reports) and
// "req-peak-alloc-B" (the mean of their last request's emalloc'ed peak, finer; php-fpm
// has no such figure). Workers that have served nothing are left out of the means.
func (w *workerServer) runtime(ctx context.Context) (RuntimeSample, error) {
	dumps, err := w.dump(ctx)
	if err != nil {
		return RuntimeSample{}, err
	}
	var requests, realPeak, allocPeak, served float64
	for _, d := range dumps {
		requests += float64(d.Requests)
		if d.Requests > 0 {
			realPeak += d.LastRealPeak
			allocPeak += d.LastPeak
			served++
		}
	}
	if served == 0 {
		return RuntimeSample{}, fmt.Errorf("php worker: no worker has served a request yet (%d workers)", len(dumps))
	}
	return RuntimeSample{
		Cumulative: map[string]float64{"requests": requests},
		PerRequest: map[string]float64{"req-peak-B": realPeak / served, "req-peak-alloc-B": allocPeak / served},
	}, nil
}

// memory signals the master (SIGUSR2) and sums the workers' memory_get_usage() from
// their fresh dumps: what the resident app keeps from one request to the next.
func (w *workerServer) memory(ctx context.Context) (float64, error) {
	dumps, err := w.dump(ctx)
	if err != nil {
		return 0, err
	}
	var sum float64
	for _, d := range dumps {
		sum += d.Memory
	}
	return sum, nil
}

// dump sends the master SIGUSR2 and waits until every worker running now has written a
// status file after the signal.
func (w *workerServer) dump(ctx context.Context) ([]workerStatus, error) {
	workers := w.workerPIDs()
	if len(workers) == 0 {
		return nil, errors.New("php worker: no worker is running")
	}
	sent := float64(time.Now().UnixMicro()) / 1e6 // dumps carry microseconds
	if err := w.master.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		return nil, fmt.Errorf("php worker: signal the master: %w", err)
	}
	deadline := time.Now().Add(workerDumpTimeout)
	for {
		dumps, missing := w.readDumps(workers, sent)
		if len(missing) == 0 {
			return dumps, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("php worker: workers %v wrote no status file within %v of SIGUSR2", missing, workerDumpTimeout)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// readDumps reads the status files of workers written at or after sent; missing lists
// the workers whose file is absent, unreadable or older.
func (w *workerServer) readDumps(workers []int, sent float64) (dumps []workerStatus, missing []int) {
	for _, pid := range workers {
		var d workerStatus
		b, err := os.ReadFile(filepath.Join(w.dir, "status", strconv.Itoa(pid)+".json"))
		if err != nil || json.Unmarshal(b, &d) != nil || d.Dumped < sent {
			missing = append(missing, pid)
			continue
		}
		dumps = append(dumps, d)
	}
	return dumps, missing
}

// workerPIDs lists the master's children, the workers.
func (w *workerServer) workerPIDs() []int {
	var out []int
	for _, pid := range w.pids() {
		if pid != w.master.cmd.Process.Pid {
			out = append(out, pid)
		}
	}
	return out
}

// workerServer is one running worker master (its workers are its children, in its
// process group) and its run directory.
type workerServer struct {
	dir    string
	master *phpProc
}

func (w *workerServer) pids() []int {
	if w.master == nil || !w.master.running() {
		return nil
	}
	pids, err := procstat.Tree(w.master.cmd.Process.Pid)
	if err != nil {
		return []int{w.master.cmd.Process.Pid}
	}
	return pids
}

// alive says whether the master still runs (it restarts workers that die).
func (w *workerServer) alive() error {
	if !w.master.running() {
		return fmt.Errorf("php worker master pid %d exited: %v", w.master.cmd.Process.Pid, w.master.waitErr)
	}
	return nil
}

// stop sends the master SIGTERM (it drains its workers), kills the process group if it
// does not stop in time, and removes the run directory.
func (w *workerServer) stop() error {
	var errs []error
	if w.master != nil {
		errs = append(errs, w.master.stop(syscall.SIGTERM, workerStopTimeout))
	}
	if err := os.RemoveAll(w.dir); err != nil {
		errs = append(errs, fmt.Errorf("php worker: remove %s: %w", w.dir, err))
	}
	return errors.Join(errs...)
}

func (w *workerServer) logTail() string {
	b, err := os.ReadFile(filepath.Join(w.dir, "php-worker.log"))
	if err != nil || len(b) == 0 {
		return "(empty)"
	}
	return loglines.Last(string(b), 5)
}
