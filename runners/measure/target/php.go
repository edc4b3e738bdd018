package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/template"
	"time"

	"dbbench/dsn"
	"dbbench/dsn/protocol"
	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/environment"
	"dbbench/runners/measure/loglines"
	"dbbench/runners/measure/procstat"
	"dbbench/runners/measure/profile"
	"dbbench/runners/measure/secret"
)

// PHPTempPrefix starts the name of every PHP target's run directory, so tests (and
// people) can check that none is left behind.
const PHPTempPrefix = "dbbench-php-"

// phpDBVars carry the database connection to the PHP code. They are set in php-fpm's own
// environment and named by the pool's env[NAME] = $NAME lines, so no file holds them.
// DBBENCH_DB_DRIVER is PDO's driver for the database's protocol: mysql or pgsql.
var phpDBVars = []string{"DBBENCH_DB_HOST", "DBBENCH_DB_PORT", "DBBENCH_DB_NAME", "DBBENCH_DB_USER", "DBBENCH_DB_PASSWORD", "DBBENCH_DB_DRIVER"}

const (
	// phpBacklog is both nginx's and php-fpm's listen backlog: far above any load
	// generator's connection count, so a burst queues instead of failing (the kernel caps
	// it at net.core.somaxconn, 4096 on current kernels).
	phpBacklog       = 4096
	phpHealthTimeout = 15 * time.Second
	// maxSocketPath is the longest path a unix socket can have on Linux (sun_path is 108
	// bytes with the NUL); php-fpm silently truncates a longer one.
	maxSocketPath = 107
	// phpStatusSocket is the longer of php-fpm's two socket names: the status page's.
	phpStatusSocket = "php-fpm-status.sock"
	phpStopTimeout  = 10 * time.Second
)

// phpPath is the PATH the PHP servers get: they inherit none of our environment.
const phpPath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// phpTemplates are rendered from php/conf/NAME.tmpl into the run directory as NAME.
var phpTemplates = []string{"nginx.conf", "php-fpm.conf", "php.ini"}

// phpConf is what the templates see.
type phpConf struct {
	Dir          string // the private run directory
	PHPDir       string // the repository's php/ directory (absolute)
	Listen       string // nginx's 127.0.0.1:PORT
	Socket       string // php-fpm's unix socket, which nginx connects to
	StatusSocket string // php-fpm's status page's own socket (pm.status_listen), beside Socket
	StatusFrom   string // the runner's address, which the status page admits besides 127.0.0.1; "" for none
	User         string // "root" when running as root (both servers refuse root otherwise), else ""
	Pool         int    // pm.max_children
	Backlog      int
	Layer        string
	Stmt         string
	Conn         string
	DBEnv        []string // names of phpDBVars, or none for hello
	Driver       string   // PDO's driver, pgsql or mysql; "" for hello, which loads mysql's
	CLI          bool     // php.ini for resident workers (PHP's CLI) rather than php-fpm
	// ProfileDir is where a profiled target writes its stacks; "" for a measured run
	// (no Excimer at all).
	ProfileDir    string
	ProfilePeriod string // seconds, DBBENCH_PROFILE_PERIOD
	ProfileClock  string // cpu or real, DBBENCH_PROFILE_CLOCK
}

// fpmLauncher runs a PHP variant under nginx + php-fpm.
type fpmLauncher struct{}

// Describe runs php/bin/describe.php with the PHP CLI.
func (fpmLauncher) Describe(o Options) (*Description, error) { return describePHP(o) }

// Environment records PHP, php-fpm and nginx, and each layer's Debian package.
func (fpmLauncher) Environment(o Options, lang string, layers []*matrix.Layer) map[string]string {
	env := phpEnvironment(o, lang, layers)
	env["php-fpm"] = environment.VersionIn(environment.Command("php-fpm8.2", "-v"), `PHP (\S+)`)
	env["nginx"] = environment.VersionIn(environment.Command("nginx", "-v"), `nginx/(\S+)`)
	return env
}

// Start renders nginx and php-fpm configurations for s into a private directory,
// starts both in the foreground as our children, and returns once GET /hello answers.
func (fpmLauncher) Start(ctx context.Context, spec matrix.Spec, o Options) (_ *Target, err error) {
	v := spec.Variant
	p, err := setUpPHP(spec, o, []string{"php-fpm8.2", "php-fpm"}, []string{"nginx"})
	if err != nil {
		return nil, err
	}
	dbEnv, fpmBin, nginxBin, phpDir, listen, dir := p.dbEnv, p.bins[0], p.bins[1], p.phpDir, p.listen, p.dir
	s := &phpServer{dir: dir}
	defer func() {
		if err != nil {
			s.stop()
		}
	}()
	conf := phpConf{
		Dir: dir, PHPDir: phpDir, Listen: listen, Pool: v.Pool, Backlog: phpBacklog,
		Layer: spec.Layer.TargetName(), Stmt: v.Stmt, Conn: v.Conn, Driver: p.driver(),
	}
	if o.From != "" && o.From != "127.0.0.1" {
		conf.StatusFrom = o.From
	}
	if os.Geteuid() == 0 {
		conf.User = "root"
	}
	sockDir := dir
	if len(filepath.Join(dir, phpStatusSocket)) > maxSocketPath { // a deep RunDir: the sockets go to a short private directory
		if sockDir, err = os.MkdirTemp("", PHPTempPrefix+"sock-*"); err != nil {
			return nil, fmt.Errorf("php target: %w", err)
		}
		s.sockDir = sockDir
		if p := filepath.Join(sockDir, phpStatusSocket); len(p) > maxSocketPath {
			return nil, fmt.Errorf("php target: socket path %s is longer than %d bytes: set a shorter TMPDIR", p, maxSocketPath)
		}
	}
	conf.Socket = filepath.Join(sockDir, "php-fpm.sock")
	conf.StatusSocket = filepath.Join(sockDir, phpStatusSocket)
	for _, kv := range dbEnv {
		name, _, _ := strings.Cut(kv, "=")
		conf.DBEnv = append(conf.DBEnv, name)
	}
	var stacks *stackReader
	if o.Profile {
		if stacks, err = profileDir(dir, &conf, fpmProfileClock); err != nil {
			return nil, err
		}
	}
	for _, name := range phpTemplates {
		if err := renderPHPTemplate(filepath.Join(phpDir, "conf", name+".tmpl"), filepath.Join(dir, name), conf); err != nil {
			return nil, err
		}
	}

	// Neither server inherits our environment: php-fpm gets the connection settings and
	// an empty PHP_INI_SCAN_DIR (php.ini is the whole configuration), nginx nothing.
	fpmArgs := []string{"-y", filepath.Join(dir, "php-fpm.conf"), "-c", filepath.Join(dir, "php.ini")}
	if conf.User == "root" {
		fpmArgs = append([]string{"-R"}, fpmArgs...) // php-fpm refuses root without it
	}
	fpmEnv := append([]string{phpPath, "PHP_INI_SCAN_DIR="}, dbEnv...)
	s.fpm, err = startPHPProc(o.host(), fpmBin, fpmArgs, fpmEnv, filepath.Join(dir, "php-fpm.log"))
	if err != nil {
		return nil, err
	}
	// nginx answers 502 until php-fpm listens; starting it only then keeps that out of
	// its log (and out of the health check).
	if err := waitForSocket(ctx, conf.Socket, s.fpm.done, phpHealthTimeout); err != nil {
		return nil, fmt.Errorf("php target %s: php-fpm: %w; %s", v.Key(), err, s.logTails())
	}
	nginxLog := filepath.Join(dir, "nginx-error.log") // -e: never the system's error log, not even at start-up
	s.nginx, err = startPHPProc(o.host(), nginxBin, []string{"-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-e", nginxLog},
		[]string{phpPath}, nginxLog)
	if err != nil {
		return nil, err
	}

	exited := make(chan struct{})
	go func() {
		select {
		case <-s.fpm.done:
		case <-s.nginx.done:
		}
		close(exited)
	}()
	url := "http://" + listen
	if err := WaitHealthy(ctx, url+"/hello", exited, phpHealthTimeout); err != nil {
		return nil, fmt.Errorf("php target %s: %w; %s", v.Key(), err, s.logTails())
	}
	// The private directory by its name in the temp dir: logs end up in committed
	// samples (a soak's targets.log), which must name no machine's paths.
	fmt.Fprintf(o.Log, "php target %s on %s (nginx pid %d, php-fpm pid %d, dir $TMPDIR/%s)\n",
		v.Key(), url, s.nginx.cmd.Process.Pid, s.fpm.cmd.Process.Pid, filepath.Base(dir))
	t := &Target{Variant: v, URL: url, Log: filepath.Join(dir, "php-fpm.log"), pids: s.pids, alive: s.alive, stop: s.stop,
		workers: func() []int { return fpmChildren(url) },
		Runtime: func(ctx context.Context) (RuntimeSample, error) { return fpmRuntime(ctx, url) },
		Holds:   &fpmHolds{url: url}}
	t.Said = func() string { return lastDatabaseError(t.Log) }
	if stacks != nil {
		// Each child appends a request's stacks as the request ends: nothing to flush.
		t.Profile = func(context.Context) (*profile.Profile, error) { return stacks.read() }
		t.ProfileTimed = func(context.Context) ([]profile.TimedStack, error) { return stacks.readTimed() }
		t.ProfileClock = fpmProfileClock
	}
	return t, nil
}

// fpmStatus is the part of php-fpm's status page (GET /fpm-status?json&full) we read.
type fpmStatus struct {
	Processes []struct {
		PID        int    `json:"pid"`
		State      string `json:"state"`
		Requests   int64  `json:"requests"`
		RequestURI string `json:"request uri"`
		// Duration is the request in progress's, or an Idle process's last request's,
		// from accepting it to its end, in microseconds.
		Duration int64 `json:"request duration"`
		// LastMemory is zend_memory_peak_usage(true) at the end of the process's last
		// request: what PHP's allocator held from the system at the request's peak, in
		// whole 2 MiB chunks (php/README.md, "Memory per request"). php-fpm shows it
		// only while the process is Idle: 0 in every other state, Finishing included.
		LastMemory float64 `json:"last request memory"`
	} `json:"processes"`
}

// fpmIdleWait bounds how long fpmRuntime waits for a child to become Idle.
const fpmIdleWait = 10 * time.Second

// fpmRuntime reads php-fpm's status page: Cumulative "requests" (served by the pool's
// children since they started) and PerRequest "req-peak-B", the mean over the idle
// children of their last request's memory (a child serving a request reports 0).
//
// A child goes on Finishing a request for a moment after its answer has left, and shows
// no memory meanwhile: when no child that has served a request is Idle but some child is
// busy, the page is read again until one is Idle (for up to fpmIdleWait). With every
// child Idle and none having served a request, there is nothing to wait for.
func fpmRuntime(ctx context.Context, url string) (RuntimeSample, error) {
	deadline := time.Now().Add(fpmIdleWait)
	for {
		st, err := readFPMStatus(ctx, url)
		if err != nil {
			return RuntimeSample{}, err
		}
		var requests, sum, idle float64
		busy := 0
		for _, p := range st.Processes {
			requests += float64(p.Requests)
			switch {
			case p.State == "Idle" && p.Requests > 0:
				sum += p.LastMemory
				idle++
			case p.State != "Idle" && !strings.HasPrefix(p.RequestURI, "/fpm-status"): // not this request
				busy++
			}
		}
		if idle > 0 {
			return RuntimeSample{
				Cumulative: map[string]float64{"requests": requests},
				PerRequest: map[string]float64{"req-peak-B": sum / idle},
			}, nil
		}
		if busy == 0 || time.Now().After(deadline) {
			return RuntimeSample{}, fmt.Errorf("php-fpm status: no idle child has served a request yet (%d children, %d busy)", len(st.Processes), busy)
		}
		select {
		case <-ctx.Done():
			return RuntimeSample{}, fmt.Errorf("php-fpm status: %w", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// fpmHolds times each request served alone by the child that served it: the child is
// the pool's resource, held from accepting the request to its end (its status page's
// request duration), which leaves out nginx and the client around it.
type fpmHolds struct {
	url      string
	requests map[int]int64 // each child's requests at the previous reading
}

// Start reads each child's count of requests served.
func (h *fpmHolds) Start(ctx context.Context) error {
	st, err := readFPMStatus(ctx, h.url)
	if err != nil {
		return err
	}
	h.requests = map[int]int64{}
	for _, p := range st.Processes {
		h.requests[p.PID] = p.Requests
	}
	return nil
}

// Next is the hold of the one request served since the previous reading: the duration
// of the child whose count rose by one, read once it is Idle again (it is Finishing
// for a moment after its answer has left).
func (h *fpmHolds) Next(ctx context.Context) (time.Duration, error) {
	deadline := time.Now().Add(fpmIdleWait)
	for {
		st, err := readFPMStatus(ctx, h.url)
		if err != nil {
			return 0, err
		}
		var served []int
		idle, more := false, false
		var d time.Duration
		for _, p := range st.Processes {
			if p.Requests != h.requests[p.PID] {
				served = append(served, p.PID)
				more = more || p.Requests > h.requests[p.PID]+1
				idle, d = p.State == "Idle", time.Duration(p.Duration)*time.Microsecond
			}
		}
		switch {
		case len(served) > 1 || more:
			h.Start(ctx) // count from here; if this reading fails too, the next Next says so
			return 0, fmt.Errorf("php-fpm status: more than one request served since the last reading, want one")
		case len(served) == 1 && idle:
			h.requests[served[0]]++
			return d, nil
		case time.Now().After(deadline):
			return 0, fmt.Errorf("php-fpm status: no child finished one request within %s", fpmIdleWait)
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("php-fpm status: %w", ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
}

// fpmChildren are the pool's children as its status page lists them: not the master's
// whole tree, which holds the status page's own process too (pm.status_listen).
func fpmChildren(url string) []int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := readFPMStatus(ctx, url)
	if err != nil {
		return nil
	}
	var pids []int
	for _, p := range st.Processes {
		pids = append(pids, p.PID)
	}
	return pids
}

// readFPMStatus reads php-fpm's status page, every child's line.
//
// php-fpm answers 500 when it could not copy its scoreboard, whose lock stayed busy
// past its spin limit (fpm_status.c: "unable to find or access status shared
// memory"); make test's load met it once. A moment later the page answers, so a 500
// is read again, a few times.
func readFPMStatus(ctx context.Context, url string) (*fpmStatus, error) {
	for try := 1; ; try++ {
		var st fpmStatus
		err := getJSON(ctx, statusClient, url+"/fpm-status?json&full", "php-fpm status", &st)
		var se *statusError
		if !errors.As(err, &se) || se.code != http.StatusInternalServerError || try == fpmStatusTries {
			return &st, err
		}
		select {
		case <-ctx.Done():
			return &st, err
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// fpmStatusTries bounds the reads of a status page that answers 500.
const fpmStatusTries = 5

// phpProfilePeriod is Excimer's sampling period in a profiled PHP target (php/README.md,
// "Profiles", has the measurements). php-fpm samples wall time: 1 ms gives a short
// request about one sample, so a repetition with a few busy children thousands, and
// costs a sampled request one stack walk and one append to its file; 0.5 ms cost more
// for no better picture. Workers sample CPU time, whose expiries the kernel delivers on
// scheduler ticks only (several periods apart): there the period only sets the
// resolution of each sample's count.
const phpProfilePeriod = time.Millisecond

// Excimer's clock per PHP server. php-fpm samples wall time: a CPU timer fires only on a
// scheduler tick, which a request profiled on its own almost never reaches (php/README.md,
// "Profiles"). A worker samples CPU time: one profiler for the process's life sees
// every tick.
const (
	fpmProfileClock    = "real"
	workerProfileClock = "cpu"
)

// profileDir makes the run directory's profile/ and sets the templates' profile fields.
func profileDir(dir string, conf *phpConf, clock string) (*stackReader, error) {
	conf.ProfileDir = filepath.Join(dir, "profile")
	if err := os.Mkdir(conf.ProfileDir, 0o700); err != nil {
		return nil, fmt.Errorf("php target: %w", err)
	}
	conf.ProfilePeriod = strconv.FormatFloat(phpProfilePeriod.Seconds(), 'f', -1, 64)
	conf.ProfileClock = clock
	return &stackReader{dir: conf.ProfileDir, seen: map[string]*profile.Profile{}, root: filepath.Dir(conf.PHPDir) + "/"}, nil
}

// profileEnv is the environment of a profiled PHP process (php-fpm's pool names the same).
func profileEnv(conf phpConf) []string {
	return []string{"DBBENCH_PROFILE_DIR=" + conf.ProfileDir, "DBBENCH_PROFILE_PERIOD=" + conf.ProfilePeriod,
		"DBBENCH_PROFILE_CLOCK=" + conf.ProfileClock}
}

// stackReader reads the collapsed-stack files (<pid>.collapsed) of a profile directory,
// whose counts only grow: php-fpm children append a request's stacks, workers rewrite
// theirs whole. read returns what was added since the previous read, each sample
// weighed as one period of Excimer's clock, in nanoseconds.
type stackReader struct {
	dir string
	// root is the directory that holds php/, cut from the frames' file names so that a
	// profile names php/public/index.php, not the machine's path to it.
	root string
	mu   sync.Mutex
	seen map[string]*profile.Profile // file -> its counts already returned
	// offset is how far each .timed file has been read.
	offset map[string]int64
}

func (r *stackReader) read() (*profile.Profile, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	files, err := filepath.Glob(filepath.Join(r.dir, "*.collapsed"))
	if err != nil {
		return nil, fmt.Errorf("php profile: %w", err)
	}
	added := &profile.Profile{Unit: "samples"}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("php profile: %w", err)
		}
		// A php-fpm child may be appending right now: whole lines only.
		b = b[:bytes.LastIndexByte(b, '\n')+1]
		now, err := profile.ReadCollapsed(bytes.NewReader(b), "samples")
		if err != nil {
			return nil, fmt.Errorf("php profile: %s: %w", filepath.Base(f), err)
		}
		for _, st := range now.Stacks {
			for i, frame := range st.Frames {
				st.Frames[i] = strings.ReplaceAll(frame, r.root, "")
			}
		}
		added.Stacks = append(added.Stacks, now.Gained(r.seen[f]).Stacks...)
		r.seen[f] = now
	}
	added.Merge()
	added.Scale(int64(phpProfilePeriod), "nanoseconds")
	return added, nil
}

// readTimed returns the timed samples (<pid>.timed, php/src/Profile.php) appended since
// the previous call, whole lines only: a child may be appending.
func (r *stackReader) readTimed() ([]profile.TimedStack, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	files, err := filepath.Glob(filepath.Join(r.dir, "*.timed"))
	if err != nil {
		return nil, fmt.Errorf("php profile: %w", err)
	}
	if r.offset == nil {
		r.offset = map[string]int64{}
	}
	var out []profile.TimedStack
	for _, f := range files {
		pid, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(f), ".timed"))
		if err != nil {
			continue // not a child's file
		}
		b, err := readFrom(f, r.offset[f])
		if err != nil {
			return nil, fmt.Errorf("php profile: %w", err)
		}
		b = b[:bytes.LastIndexByte(b, '\n')+1]
		r.offset[f] += int64(len(b))
		ss, err := profile.ReadTimed(bytes.NewReader(b), pid)
		if err != nil {
			return nil, fmt.Errorf("php profile: %s: %w", filepath.Base(f), err)
		}
		for _, st := range ss { // repository-relative frames, as read() writes them
			for i, frame := range st.Frames {
				st.Frames[i] = strings.ReplaceAll(frame, r.root, "")
			}
		}
		out = append(out, ss...)
	}
	return out, nil
}

// readFrom reads a file from offset to its end.
func readFrom(name string, offset int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

// statusClient reads status pages: a fresh connection each time, never a load
// generator's.
var statusClient = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

// phpSetup is what both PHP launchers resolve before they render a configuration.
type phpSetup struct {
	dbEnv  []string // the DBBENCH_DB_* variables (phpDatabaseEnv)
	bins   []string // each binary asked for: the first of its names on the path
	phpDir string
	listen string
	dir    string // the private run directory (phpRunDir), the caller's to remove
}

// driver is PDO's driver the DSN asks for (DBBENCH_DB_DRIVER), "" without a database.
func (s phpSetup) driver() string {
	for _, kv := range s.dbEnv {
		if v, ok := strings.CutPrefix(kv, "DBBENCH_DB_DRIVER="); ok {
			return v
		}
	}
	return ""
}

// setUpPHP resolves a PHP launcher's database environment, binaries, php/ and listen
// address, in that order, then makes its run directory: a missing piece stops the
// launcher before anything is created.
func setUpPHP(spec matrix.Spec, o Options, bins ...[]string) (phpSetup, error) {
	var s phpSetup
	var err error
	if o.Remote != nil {
		return s, fmt.Errorf("php target %s: PHP targets run on this host or in a namespace, not on %s: only Go targets run over SSH", spec.Key(), o.Remote)
	}
	if s.dbEnv, err = phpDatabaseEnv(spec, o.DSNFile); err != nil {
		return s, err
	}
	for _, names := range bins {
		bin, err := lookSbin(names...)
		if err != nil {
			return s, err
		}
		s.bins = append(s.bins, bin)
	}
	if s.phpDir, err = findPHPDir(o.RepoRoot); err != nil {
		return s, err
	}
	if s.listen, err = listenAddr(o); err != nil {
		return s, err
	}
	s.dir, err = phpRunDir(o.RunDir, s.phpDir)
	return s, err
}

// phpRunDir makes a private run directory (mode 0700) under parent ("" is the system's
// temporary directory), with a tmp/ inside, for a PHP target's configurations and logs.
func phpRunDir(parent, phpDir string) (string, error) {
	if parent != "" {
		if err := os.MkdirAll(parent, 0o700); err != nil {
			return "", fmt.Errorf("php target: %w", err)
		}
	}
	dir, err := os.MkdirTemp(parent, PHPTempPrefix+"*")
	if err != nil {
		return "", fmt.Errorf("php target: %w", err)
	}
	for _, p := range []string{dir, phpDir} {
		if strings.ContainsAny(p, "\"'$\\\x00\n\r\t") {
			os.RemoveAll(dir)
			return "", fmt.Errorf("php target: path %q has a quote, $, backslash or control character, which the nginx and php-fpm configurations cannot hold", p)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o700); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("php target: %w", err)
	}
	return dir, nil
}

// phpDatabaseEnv reads the DSN file and returns the DBBENCH_DB_* variables for the PHP
// processes' environment (none for a layer without database). PDO connects over TCP, as
// it would across a network, so a MySQL DSN must name tcp(host:port); a PostgreSQL URL
// gives host and port as it is.
func phpDatabaseEnv(spec matrix.Spec, dsnFile string) ([]string, error) {
	v := spec.Variant
	if !spec.Layer.DB {
		return nil, nil
	}
	if dsnFile == "" {
		return nil, fmt.Errorf("php target: %s needs a database: give a DSN file", v.Key())
	}
	b, err := os.ReadFile(dsnFile)
	if err != nil {
		return nil, fmt.Errorf("php target: %w", err)
	}
	line := strings.TrimSpace(string(b))
	secret.RegisterDSN(line)
	t, err := dsn.TCPOf(line)
	if err != nil {
		return nil, fmt.Errorf("php target: DSN in %s: %s", dsnFile, secret.Scrub(err.Error()))
	}
	secret.Register(t.Password) // the driver's reading, should it differ from RegisterDSN's
	if t.Database == "" || t.User == "" {
		return nil, fmt.Errorf("php target: DSN in %s names no database or no user", dsnFile)
	}
	vals := []string{t.Host, t.Port, t.Database, t.User, t.Password, pdoDriver[protocol.Of(line)]}
	env := make([]string, len(phpDBVars))
	for i, name := range phpDBVars {
		if strings.ContainsAny(vals[i], "\x00\n") {
			return nil, fmt.Errorf("php target: DSN in %s: %s holds a NUL or newline", dsnFile, name)
		}
		env[i] = name + "=" + vals[i]
	}
	return env, nil
}

// pdoDriver is PDO's driver for each protocol, DBBENCH_DB_DRIVER's value.
var pdoDriver = map[protocol.Protocol]string{protocol.MySQL: "mysql", protocol.Postgres: "pgsql"}

// lookSbin finds the first of names on PATH or in the sbin directories a non-login PATH
// may lack (Debian keeps php-fpm8.2 and nginx in /usr/sbin).
func lookSbin(names ...string) (string, error) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
		for _, d := range []string{"/usr/local/sbin", "/usr/sbin", "/sbin"} {
			if p := filepath.Join(d, n); isExecutable(p) {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("php target: no %s found: install Debian's php8.2-fpm and nginx (make deps)", strings.Join(names, " or "))
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// findPHPDir returns the absolute php/ directory of the repository at root, or of the
// first directory above the working directory that has one when root is "".
func findPHPDir(root string) (string, error) {
	const marker = "php/public/index.php"
	if root != "" {
		abs, err := filepath.Abs(root)
		if err != nil {
			return "", fmt.Errorf("php target: %w", err)
		}
		if _, err := os.Stat(filepath.Join(abs, marker)); err != nil {
			return "", fmt.Errorf("php target: repository root %s has no %s", abs, marker)
		}
		return filepath.Join(abs, "php"), nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("php target: %w", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, marker)); err == nil {
			return filepath.Join(d, "php"), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("php target: no %s in %s or above: set the repository root", marker, wd)
		}
	}
}

// waitForSocket waits until path exists, the process exits (done) or timeout passes.
func waitForSocket(ctx context.Context, path string, done <-chan struct{}, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		select {
		case <-done:
			return errors.New("exited during start-up")
		case <-deadline:
			return fmt.Errorf("no socket %s after %v", path, timeout)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func renderPHPTemplate(src, dst string, conf phpConf) error {
	t, err := template.New(filepath.Base(src)).Option("missingkey=error").ParseFiles(src)
	if err != nil {
		return fmt.Errorf("php target: %w", err)
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("php target: %w", err)
	}
	if err := t.Execute(f, conf); err != nil {
		f.Close()
		return fmt.Errorf("php target: render %s: %w", src, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("php target: %w", err)
	}
	return nil
}

// phpServer is one running nginx + php-fpm pair and its run directory.
type phpServer struct {
	dir     string
	sockDir string // "" unless the socket did not fit in dir
	nginx   *phpProc
	fpm     *phpProc
}

// pids lists both masters and all their workers.
func (s *phpServer) pids() []int {
	var roots []int
	for _, p := range []*phpProc{s.nginx, s.fpm} {
		if p != nil && p.running() {
			roots = append(roots, p.cmd.Process.Pid)
		}
	}
	pids, err := procstat.Tree(roots...)
	if err != nil {
		return roots
	}
	return pids
}

// alive says whether both masters still run.
func (s *phpServer) alive() error {
	for _, p := range []*phpProc{s.nginx, s.fpm} {
		if !p.running() {
			return fmt.Errorf("%s master pid %d exited: %v", p.name, p.cmd.Process.Pid, p.waitErr)
		}
	}
	return nil
}

// stop ends nginx first (no new requests), then php-fpm, and removes the run directory.
// nginx finishes in-flight requests on SIGQUIT; php-fpm's SIGQUIT is its graceful stop.
func (s *phpServer) stop() error {
	var errs []error
	for _, p := range []*phpProc{s.nginx, s.fpm} {
		if p != nil {
			errs = append(errs, p.stop(syscall.SIGQUIT, phpStopTimeout))
		}
	}
	for _, d := range []string{s.dir, s.sockDir} {
		if d == "" {
			continue
		}
		if err := os.RemoveAll(d); err != nil {
			errs = append(errs, fmt.Errorf("php target: remove %s: %w", d, err))
		}
	}
	return errors.Join(errs...)
}

// lastDatabaseError is the last line of a PHP target's log that says why a request got
// its 503 (php/src/App.php logs "dbbench: … database error: …"), scrubbed; "" when none.
func lastDatabaseError(log string) string {
	b, err := os.ReadFile(log)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], ": database error: ") {
			return secret.Scrub(strings.TrimSpace(lines[i]))
		}
	}
	return ""
}

// logTails is the end of both servers' logs, for an error that says why a start failed.
func (s *phpServer) logTails() string {
	var parts []string
	for _, name := range []string{"php-fpm.log", "nginx-error.log"} {
		b, err := os.ReadFile(filepath.Join(s.dir, name))
		if err != nil || len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		parts = append(parts, name+": "+loglines.Last(secret.Scrub(string(b)), 5))
	}
	if len(parts) == 0 {
		return "no log output"
	}
	return strings.Join(parts, "; ")
}

// phpProc is a master process (nginx or php-fpm) in its own process group, which its
// workers share.
type phpProc struct {
	name    string
	cmd     *exec.Cmd
	done    chan struct{} // closed once the process has exited and been reaped
	waitErr error         // how it exited; read only after done is closed
}

func startPHPProc(host Host, bin string, args, env []string, logFile string) (*phpProc, error) {
	log, err := os.OpenFile(logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("php target: %w", err)
	}
	defer log.Close() // the child has its own copy
	cmd := host.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid: true, // the workers join the master's group, so one signal reaches all
		// If we are killed outright the master must not outlive us, nor leave its workers
		// behind: SIGKILL would orphan them (neither nginx nor php-fpm workers notice their
		// master's death), SIGTERM is both masters' "stop now, workers included".
		Pdeathsig: syscall.SIGTERM,
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("php target: start %s: %w", bin, err)
	}
	p := &phpProc{name: filepath.Base(bin), cmd: cmd, done: make(chan struct{})}
	go func() { p.waitErr = cmd.Wait(); close(p.done) }()
	return p, nil
}

func (p *phpProc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// stop signals the master and waits; a master that has not exited after timeout is
// killed with its whole process group (its workers), while its PID still names the group.
func (p *phpProc) stop(sig syscall.Signal, timeout time.Duration) error {
	if !p.running() {
		// A master that died (SIGKILL, crash) left its workers, which do not notice: they
		// are still in its process group, which its PID names while they live.
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		if p.waitErr != nil {
			return fmt.Errorf("php target: %s (pid %d) had already exited: %w", p.name, p.cmd.Process.Pid, p.waitErr)
		}
		return nil
	}
	p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
		if p.waitErr != nil {
			return fmt.Errorf("php target: %s (pid %d) on %v: %w", p.name, p.cmd.Process.Pid, sig, p.waitErr)
		}
		return nil
	case <-time.After(timeout):
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
	return fmt.Errorf("php target: %s (pid %d) ignored %v for %v and was killed", p.name, p.cmd.Process.Pid, sig, timeout)
}
