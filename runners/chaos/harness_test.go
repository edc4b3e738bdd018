package chaos

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"dbbench/runners/measure/revision"
	"dbbench/runners/results"
	"dbbench/runners/results/benchfile"
)

// The scenarios run the binaries built here, from the working tree, into a private root
// that links to the repository's sources: bin/ is ours, so nothing another process
// builds or runs in the repository's bin/ is touched.
var (
	root  string // DBBENCH_ROOT for every dbbench started
	table Table
	// full selects every scenario and every signal point (make chaos); the default is the
	// shortened form that make test runs.
	full = os.Getenv("CHAOS") == "full"
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	// Orphans of the processes we start (a php-fpm worker whose master was killed) are
	// re-parented to us rather than to init, so "no process left" is checked exactly:
	// after a scenario, we must have no descendants but the ones we keep on purpose.
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		fmt.Fprintln(os.Stderr, "chaos: prctl(PR_SET_CHILD_SUBREAPER):", errno)
		return 1
	}
	os.Setenv("PATH", os.Getenv("PATH")+":/usr/local/sbin:/usr/sbin:/sbin")
	var err error
	if root, err = buildRoot(); err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		return 1
	}
	defer os.RemoveAll(root)
	code := m.Run()
	if table.Len() > 0 {
		form := "shortened form (CHAOS=full for every scenario)"
		if full {
			form = "full"
		}
		fmt.Printf("\nchaos scenarios, %s:\n", form)
		table.Print(os.Stdout)
	}
	return code
}

const prSetChildSubreaper = 36

// buildRoot builds dbbench and gotarget into a new directory that links to the
// repository's runners/, php/ and the rest.
func buildRoot() (string, error) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "chaos-root-")
	if err != nil {
		return "", err
	}
	entries, err := os.ReadDir(repo)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.Name() == "bin" || e.Name() == "reports" || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := os.Symlink(filepath.Join(repo, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return "", err
		}
	}
	dbbench := exec.Command("go", "build", "-o", filepath.Join(dir, "bin/dbbench"), "./runners/cmd/dbbench")
	dbbench.Dir = repo
	gotarget := revision.GoBuild(context.Background(), repo, filepath.Join(dir, "bin/gotarget"))
	for _, cmd := range []*exec.Cmd{dbbench, gotarget} {
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
		}
	}
	return dir, nil
}

// proc is one dbbench process of a scenario, with its output collected line by line.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	tmp    string // its TMPDIR: every temporary directory it makes is under here
	mu     sync.Mutex
	stdout bytes.Buffer
	stderr []string
	lines  chan string // stderr lines as they come, for waitFor
	done   chan struct{}
	code   int
}

// newTmp makes a scenario's TMPDIR, short enough for unix socket paths.
func newTmp(t *testing.T) string {
	dir, err := os.MkdirTemp("", "chaos-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// dbbench starts bin/dbbench with args, in its own process group, with TMPDIR=tmp.
func dbbench(t *testing.T, tmp string, args ...string) *proc {
	t.Helper()
	return dbbenchIn(t, tmp, root, nil, args...)
}

// dbbenchIn is dbbench from another root (DBBENCH_ROOT, and its bin/dbbench), with env
// added to the environment.
func dbbenchIn(t *testing.T, tmp, root string, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(filepath.Join(root, "bin", "dbbench"), args...)
	cmd.Dir = tmp
	cmd.Env = append(append(os.Environ(), "DBBENCH_ROOT="+root, "TMPDIR="+tmp), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p := &proc{t: t, cmd: cmd, tmp: tmp, lines: make(chan string, 4096), done: make(chan struct{})}
	cmd.Stdout = &lockedWriter{mu: &p.mu, w: &p.stdout}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(errPipe)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.stderr = append(p.stderr, sc.Text())
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default:
			}
		}
		err := cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		if err != nil && p.code == 0 {
			p.code = -1
		}
		close(p.lines)
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group we started
			<-p.done
		}
	})
	return p
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// waitFor waits for a stderr line matching re; false if the process ended or timeout passed.
func (p *proc) waitFor(re string, timeout time.Duration) bool {
	rx := regexp.MustCompile(re)
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				return false
			}
			if rx.MatchString(l) {
				return true
			}
		case <-deadline:
			return false
		}
	}
}

// wait waits for the process to end; a process still running after timeout is a hang:
// it is killed and the test fails.
func (p *proc) wait(timeout time.Duration) int {
	p.t.Helper()
	go func() {
		for range p.lines { // keep draining so the reader never blocks
		}
	}()
	select {
	case <-p.done:
	case <-time.After(timeout):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		p.t.Fatalf("dbbench %v still running after %v: killed\n%s", p.cmd.Args[1:], timeout, p.errText())
	}
	return p.code
}

func (p *proc) signal(sig syscall.Signal) { p.cmd.Process.Signal(sig) }

// freeze stops dbbench where it is (SIGSTOP, every thread) and writes mark into its
// stderr, so that the stderr lines before mark are exactly those it printed before that
// point. A fault injected before thaw is called comes, as far as dbbench can tell, at
// that one point: the test knows which slice was under way, however late it got there.
// A dbbench that has ended already gets mark after all it printed.
func (p *proc) freeze(mark string) (thaw func()) {
	p.t.Helper()
	pid := p.cmd.Process.Pid
	thaw = func() { syscall.Kill(pid, syscall.SIGCONT) }
	if syscall.Kill(pid, syscall.SIGSTOP) == nil {
		for deadline := time.Now().Add(30 * time.Second); !stopped(pid); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				thaw()
				p.t.Fatal("dbbench still running 30 s after SIGSTOP")
			}
		}
		// Its stderr, opened anew: the write end of the same pipe.
		if f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/2", pid), os.O_WRONLY, 0); err == nil {
			_, err = f.WriteString(mark + "\n") // less than PIPE_BUF in one write: one whole line
			f.Close()
			if err != nil {
				thaw()
				p.t.Fatalf("write the mark into dbbench's stderr: %v", err)
			}
			return thaw
		}
	}
	// No process, or a zombie without descriptors: dbbench has exited.
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		p.t.Fatal("dbbench has exited, but its stderr is still open 60 s later")
	}
	p.mu.Lock()
	p.stderr = append(p.stderr, mark)
	p.mu.Unlock()
	return func() {}
}

// inject kills (SIGKILL) the process victim returns while dbbench is frozen at mark,
// and returns when, on the wall clock dbbench records slices by; zero when there was no
// process (0): what it was to hit had ended before the test got there, as the slices
// printed around mark show.
func (p *proc) inject(mark string, victim func() int) time.Time {
	p.t.Helper()
	thaw := p.freeze(mark)
	defer thaw()
	if pid := victim(); pid != 0 {
		syscall.Kill(pid, syscall.SIGKILL)
		return time.Now().UTC()
	}
	p.t.Logf("%s: no such process left at that point", mark)
	return time.Time{}
}

// stopped says whether every thread of pid is stopped, or has exited.
func stopped(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return true // the process is gone
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			continue // the thread is gone
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || len(s) < i+3 {
			return false
		}
		if st := s[i+2]; st != 'T' && st != 't' && st != 'Z' && st != 'X' {
			return false
		}
	}
	return true
}

// sliceRef is one "[lang slice n]" progress line: slice n of the language's phase.
type sliceRef struct {
	lang string
	n    int
}

func (s sliceRef) String() string { return fmt.Sprintf("%s slice %d", s.lang, s.n) }

var sliceLine = regexp.MustCompile(`^\[(\w+) slice (\d+)\]`)

// slicesAround are the slices of lang (every language for "") whose progress line
// dbbench printed before mark, and after it. Call it once the process has ended.
func (p *proc) slicesAround(mark, lang string) (before, after []sliceRef) {
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := false
	for _, l := range p.stderr {
		if l == mark {
			seen = true
			continue
		}
		m := sliceLine.FindStringSubmatch(l)
		if m == nil || (lang != "" && m[1] != lang) {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		if seen {
			after = append(after, sliceRef{m[1], n})
		} else {
			before = append(before, sliceRef{m[1], n})
		}
	}
	if !seen {
		p.t.Fatalf("mark %q not in dbbench's stderr", mark)
	}
	return before, after
}

func (p *proc) errText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.stderr, "\n")
}

func (p *proc) outText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdout.String()
}

// lastLine is the last stderr line: where dbbench puts its one error line.
func (p *proc) lastLine() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.stderr) == 0 {
		return ""
	}
	return p.stderr[len(p.stderr)-1]
}

// errorLines are the stderr lines that start with "dbbench: ": there must be exactly one.
func (p *proc) errorLines() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, l := range p.stderr {
		if strings.HasPrefix(l, "dbbench: ") {
			out = append(out, l)
		}
	}
	return out
}

// oneErrorLine checks that the process failed with exactly one "dbbench: " line, last,
// matching want.
func (p *proc) oneErrorLine(want string) string {
	p.t.Helper()
	lines := p.errorLines()
	if len(lines) != 1 || lines[0] != p.lastLine() {
		p.t.Errorf("want one error line, last; stderr:\n%s", p.errText())
		return strings.Join(lines, " | ")
	}
	p.t.Logf("error line: %s", lines[0])
	if !regexp.MustCompile(want).MatchString(lines[0]) {
		p.t.Errorf("error line %q does not match %q", lines[0], want)
	}
	return lines[0]
}

// --- what is left behind ---

type procInfo struct {
	pid, ppid int
	state     string
	comm      string
}

func processes() map[int]procInfo {
	out := map[int]procInfo{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		s := string(b)
		i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if i < 0 || j < i {
			continue
		}
		f := strings.Fields(s[j+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		out[pid] = procInfo{pid: pid, ppid: ppid, state: f[0], comm: s[i+1 : j]}
	}
	return out
}

// descendants are this test process's living descendants, except keep.
func descendants(keep map[int]bool) []procInfo {
	all := processes()
	self := os.Getpid()
	var out []procInfo
	for pid, p := range all {
		if keep[pid] || p.state == "Z" {
			continue
		}
		for q, n := p, 0; n < 64; n++ {
			if q.ppid == self {
				out = append(out, p)
				break
			}
			parent, ok := all[q.ppid]
			if !ok || parent.pid <= 1 {
				break
			}
			q = parent
		}
	}
	return out
}

// reapZombies waits for our exited orphans (never for a process in keep, which its
// starter waits for itself).
func reapZombies(keep map[int]bool) {
	self := os.Getpid()
	for pid, p := range processes() {
		if p.ppid == self && p.state == "Z" && !keep[pid] {
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
	}
}

// leftovers counts processes and temporary directories a finished scenario left: our
// descendants (but keep), and dbbench-* entries in its TMPDIR. Processes get time to
// finish exiting (orphans notice their master's end by themselves), up to a 30 s hang
// guard; whatever is left is then killed, so a failing scenario does not leave it to the
// next one.
func leftovers(t *testing.T, tmp string, keep map[int]bool) int {
	t.Helper()
	var left []procInfo
	for deadline := time.Now().Add(30 * time.Second); ; {
		reapZombies(keep)
		if left = descendants(keep); len(left) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, p := range left {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.pid))
		t.Errorf("process left behind: pid %d (%s) %s", p.pid, p.comm, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		syscall.Kill(p.pid, syscall.SIGKILL)
	}
	n := len(left)
	if tmp != "" {
		dirs, _ := filepath.Glob(filepath.Join(tmp, "dbbench-*"))
		for _, d := range dirs {
			t.Errorf("temporary directory left behind: %s", d)
		}
		n += len(dirs)
	}
	time.Sleep(50 * time.Millisecond)
	reapZombies(keep)
	return n
}

// --- what was written ---

// written checks that the run directory holds whole files: results.json that parses
// with the right schema, bench.txt that benchfile reads, with as many lines as
// repetitions in results.json. It returns the results (nil if there is no results.json
// yet, which is whole too: nothing was written).
func written(t *testing.T, out string) (*results.Run, int) {
	t.Helper()
	path := filepath.Join(out, "results.json")
	if _, err := os.Stat(path); os.IsNotExist(err) {
		if _, err := os.Stat(filepath.Join(out, "bench.txt")); err == nil {
			t.Errorf("bench.txt without results.json in %s", out)
		}
		return nil, 0
	}
	res, err := results.Read(path)
	if err != nil {
		t.Errorf("results.json is not whole: %v", err)
		return nil, 0
	}
	reps, validReps := 0, 0
	for _, v := range res.Variants {
		reps += len(v.Reps)
		if v.Valid { // bench.txt leaves invalid variants out, by design
			validReps += len(v.Reps)
		}
	}
	bf, err := benchfile.ReadFile(filepath.Join(out, "bench.txt"))
	if err != nil {
		t.Errorf("bench.txt is not whole: %v", err)
		return res, reps
	}
	lines := 0
	for k, xs := range bf.Samples {
		if k.Unit == "req/s" {
			lines += len(xs)
		}
	}
	if lines != validReps {
		t.Errorf("bench.txt has %d repetitions, results.json %d of valid variants", lines, validReps)
	}
	// Nothing half-written may remain beside them (the atomic writer's temporary files).
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") || strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left in the run directory: %s", e.Name())
		}
	}
	return res, reps
}

// descendant is a living descendant of pid whose comm starts with name (mariadbd,
// gotarget, php-fpm8.2, nginx), or 0.
func descendant(pid int, name string) int {
	all := processes()
	for _, p := range all {
		if !strings.HasPrefix(p.comm, name) || p.state == "Z" {
			continue
		}
		for q, n := p, 0; n < 64; n++ {
			if q.ppid == pid {
				return p.pid
			}
			parent, ok := all[q.ppid]
			if !ok || parent.pid <= 1 {
				break
			}
			q = parent
		}
	}
	return 0
}

var _ = context.Background
