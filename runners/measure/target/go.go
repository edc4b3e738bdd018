package target

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/provider"
	"dbbench/runners/measure/secret"
)

// GoBinary is the name `make build` gives the Go target in the bin directory.
const GoBinary = "gotarget"

// Go target timings: start-up is a connect plus at most a few ORM queries; a graceful
// stop waits for in-flight requests, which end within the target's 5 s request timeout.
var (
	goHealthyTimeout = 30 * time.Second
	goStopTimeout    = 10 * time.Second
)

// goLauncher runs the Go server binary, bin/gotarget.
type goLauncher struct{}

// binary is where `make build` put gotarget.
func (goLauncher) binary(o Options) string {
	binDir := o.BinDir
	if binDir == "" {
		binDir = filepath.Join(o.RepoRoot, "bin")
	}
	return filepath.Join(binDir, GoBinary)
}

// Describe runs gotarget --describe.
func (l goLauncher) Describe(o Options) (*Description, error) {
	out, err := exec.Command(l.binary(o), "--describe").Output()
	if err != nil {
		return nil, fmt.Errorf("target: %s --describe: %w (run make build)", l.binary(o), err)
	}
	return parseDescription(GoBinary, out)
}

// Environment reads the Go version and the layers' module versions from gotarget's build
// information: what is measured is what was linked.
func (l goLauncher) Environment(o Options, lang string, layers []*matrix.Layer) map[string]string {
	env := map[string]string{"gotarget-go": "unknown"}
	info, err := buildinfo.ReadFile(l.binary(o))
	if err != nil {
		return env
	}
	env["gotarget-go"] = info.GoVersion
	for _, layer := range layers {
		if !layer.DB {
			continue
		}
		env[LayerKey(lang, layer.Name)] = layer.VersionOf + " not linked"
		for _, d := range info.Deps {
			if d.Path == layer.VersionOf {
				env[LayerKey(lang, layer.Name)] = d.Path + " " + d.Version
			}
		}
	}
	return env
}

// Start runs bin/gotarget with the flags that name s, on a free loopback admin port,
// and returns once GET /hello answers.
func (l goLauncher) Start(ctx context.Context, s matrix.Spec, o Options) (*Target, error) {
	v := s.Variant
	args, err := goArgs(s, o.DSNFile)
	if err != nil {
		return nil, err
	}
	if o.Remote != nil {
		return l.startRemote(ctx, s, o, args)
	}
	bin := l.binary(o)
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("target %s: no Go target at %s (run make build): %w", v.Key(), bin, err)
	}
	listen, err := listenAddr(o)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", v.Key(), err)
	}
	admin, err := o.host().FreeLoopback()
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", v.Key(), err)
	}
	args = append(args, "--listen", listen, "--admin-listen", admin)

	out := &tailWriter{prefix: GoBinary + ": ", w: o.Log}
	cmd := o.host().Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,            // a terminal's Ctrl-C reaches the runner, which stops the target in order
		Pdeathsig: syscall.SIGKILL, // if the runner is killed outright, the target does not outlive it
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("target %s: start %s: %w", v.Key(), bin, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); out.flush(); close(exited) }()
	pid := cmd.Process.Pid

	stop := func() error {
		select {
		case <-exited:
			if waitErr != nil {
				return fmt.Errorf("target %s: %s had already exited: %v; last output: %s", v.Key(), GoBinary, waitErr, out.tail())
			}
			return nil
		default:
		}
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
			if waitErr != nil {
				return fmt.Errorf("target %s: %s pid %d did not stop cleanly on SIGTERM: %v; last output: %s", v.Key(), GoBinary, pid, waitErr, out.tail())
			}
			return nil
		case <-time.After(goStopTimeout):
			cmd.Process.Kill()
			<-exited
			return fmt.Errorf("target %s: %s pid %d ignored SIGTERM for %v and was killed", v.Key(), GoBinary, pid, goStopTimeout)
		}
	}

	url := "http://" + listen
	if err := WaitHealthy(ctx, url+"/hello", exited, goHealthyTimeout); err != nil {
		stop()
		<-exited
		return nil, fmt.Errorf("target %s: %w; %s said: %s", v.Key(), err, GoBinary, out.tail())
	}
	// The admin listener serves pprof on the target's own loopback only: the runner
	// reaches it through a forward when the target runs elsewhere.
	adminHere, unforward, err := o.host().Forward(admin)
	if err != nil {
		stop()
		<-exited
		return nil, fmt.Errorf("target %s: reach the admin listener %s: %w", v.Key(), admin, err)
	}
	stopTarget := stop
	stop = func() error {
		unforward()
		return stopTarget()
	}
	fmt.Fprintf(o.Log, "%s pid %d serving %s on %s\n", GoBinary, pid, v.Key(), url)
	return &Target{
		Variant:  v,
		URL:      url,
		AdminURL: "http://" + adminHere,
		Runtime:  goRuntime("http://" + adminHere),
		Holds:    &goHolds{admin: "http://" + adminHere},
		Said:     out.lastError,
		pids: func() []int {
			select {
			case <-exited:
				return nil
			default:
				return []int{pid}
			}
		},
		alive: func() error {
			select {
			case <-exited:
				return fmt.Errorf("%s pid %d exited: %v", GoBinary, pid, waitErr)
			default:
				return nil
			}
		},
		stop: stop,
	}, nil
}

// goArgs are gotarget's flags for s. The binary refuses combinations that are not
// variants itself; here only what it cannot know is checked: the DSN file.
func goArgs(s matrix.Spec, dsnFile string) ([]string, error) {
	v := s.Variant
	if !s.Layer.DB {
		return []string{"--layer", s.Layer.TargetName()}, nil
	}
	if dsnFile == "" {
		return nil, fmt.Errorf("target %s: the layer reads the database, but no DSN file was given", v.Key())
	}
	b, err := os.ReadFile(dsnFile)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", v.Key(), err)
	}
	// Registers the password with secret, so the target's output is scrubbed even when
	// the DSN came from a file this process did not write.
	line := strings.TrimSpace(string(b))
	if err := provider.CheckLine(line); err != nil {
		return nil, fmt.Errorf("target %s: DSN file %s: %w", v.Key(), dsnFile, err)
	}
	args := []string{"--layer", s.Layer.TargetName(), "--stmt", v.Stmt, "--conn", v.Conn,
		"--pool", strconv.Itoa(v.Pool), "--dsn-file", dsnFile}
	if s.Op != nil && s.Op.Texts > 0 {
		args = append(args, "--texts", strconv.Itoa(s.Op.Texts))
	}
	return args, nil
}

// tailWriter passes the target's output on line by line, scrubbed of secrets, and keeps
// the last lines for error messages.
type tailWriter struct {
	prefix string
	w      io.Writer
	mu     sync.Mutex
	part   []byte   // an unfinished line
	last   []string // the most recent lines, at most tailLines
	dbErr  string   // the most recent database error (lastError)
}

const tailLines = 5

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part = append(t.part, p...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		t.line(string(t.part[:i]))
		t.part = t.part[i+1:]
	}
	return len(p), nil
}

// flush emits an unfinished last line (the process has exited).
func (t *tailWriter) flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.part) > 0 {
		t.line(string(t.part))
		t.part = nil
	}
}

func (t *tailWriter) line(s string) {
	s = secret.Scrub(s)
	if t.w != nil {
		fmt.Fprintln(t.w, t.prefix+s)
	}
	if strings.Contains(s, ": database error: ") {
		t.dbErr = s
	}
	t.last = append(t.last, s)
	if len(t.last) > tailLines {
		t.last = t.last[1:]
	}
}

// lastError is the most recent line of gotarget's own about a database error (the
// cause of a 503: go/server/server.go), "" before any; the drivers' own log lines
// (a broken pipe) come and go around it.
func (t *tailWriter) lastError() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dbErr
}

func (t *tailWriter) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.last) == 0 {
		return "(nothing)"
	}
	return strings.Join(t.last, " | ")
}

// goMetrics names the Go runtime's cumulative counters (gotarget's GET /debug/metrics)
// as RuntimeSample reports them.
var goMetrics = map[string]string{
	"/gc/heap/allocs:objects":    "allocs",
	"/gc/heap/allocs:bytes":      "B",
	"/gc/cycles/total:gc-cycles": "gc-cycles",
}

// goRuntime reads gotarget's runtime counters over its admin listener. The read itself
// allocates a little in the target (one admin request against thousands measured).
func goRuntime(admin string) func(ctx context.Context) (RuntimeSample, error) {
	return func(ctx context.Context) (RuntimeSample, error) {
		m, err := ReadMetrics(ctx, admin)
		if err != nil {
			return RuntimeSample{}, fmt.Errorf("target: %w", err)
		}
		out := RuntimeSample{Cumulative: map[string]float64{}}
		for name, key := range goMetrics {
			if v, ok := m[name]; ok {
				out.Cumulative[key] = v
			}
		}
		return out, nil
	}
}
