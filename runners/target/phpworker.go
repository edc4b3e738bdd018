package target

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"dbbench/runners/matrix"
	"dbbench/runners/procstat"
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
	dbEnv, err := phpDatabaseEnv(spec, o.DSNFile)
	if err != nil {
		return nil, err
	}
	phpBin, err := lookSbin("php8.2", "php")
	if err != nil {
		return nil, err
	}
	phpDir, err := findPHPDir(o.RepoRoot)
	if err != nil {
		return nil, err
	}
	listen, err := listenAddr(o.Listen)
	if err != nil {
		return nil, err
	}
	dir, err := phpRunDir(o.RunDir, phpDir)
	if err != nil {
		return nil, err
	}
	w := &workerServer{dir: dir}
	defer func() {
		if err != nil {
			w.stop()
		}
	}()
	ini := filepath.Join(dir, "php.ini")
	conf := phpConf{Dir: dir, PHPDir: phpDir, CLI: true}
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
		"DBBENCH_LAYER=" + v.Layer, "DBBENCH_STMT=" + v.Stmt, "DBBENCH_CONN=" + v.Conn}, dbEnv...)
	if w.master, err = startPHPProc(phpBin, args, env, filepath.Join(dir, "php-worker.log")); err != nil {
		return nil, err
	}
	url := "http://" + listen
	if err := WaitHealthy(ctx, url+"/hello", w.master.done, phpHealthTimeout); err != nil {
		return nil, fmt.Errorf("php worker %s: %w; php-worker.log: %s", v.Key(), err, w.logTail())
	}
	fmt.Fprintf(o.Log, "php worker %s on %s (master pid %d, dir %s)\n", v.Key(), url, w.master.cmd.Process.Pid, dir)
	return &Target{Variant: v, URL: url, Log: filepath.Join(dir, "php-worker.log"), pids: w.pids, alive: w.alive, stop: w.stop}, nil
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
	return lastLines(string(b), 5)
}
