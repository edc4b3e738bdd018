package remote

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// runScript (run.sh in the scratch directory) starts a program with its output on
// stderr, prints its PID, and ends it (SIGTERM, SIGKILL 10 s later) once stdin closes:
// the runner keeps stdin open while the target lives, and a runner or a connection
// that dies closes it. The watcher reads with the shell's own read, so it is one
// process that the script can end when the program exits first; it reads stdin through
// fd 3, since a background job's own stdin is /dev/null. After SIGTERM it polls in
// tenths of a second rather than sleeping 10 s, so that it ends with the program and
// leaves no sleep behind on the host.
const runScript = `exec 3<&0
"$@" >&2 </dev/null 3<&- &
pid=$!
echo "pid $pid"
( while read -r _; do :; done; kill -TERM "$pid" 2>/dev/null
  n=0; while [ $n -lt 100 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; n=$((n+1)); done
  kill -KILL "$pid" 2>/dev/null ) <&3 >/dev/null 2>&1 &
watch=$!
wait "$pid"
status=$?
kill "$watch" 2>/dev/null
exit $status
`

// Proc is a process started there.
type Proc struct {
	PID   int // there
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{}
	err   error // how the session ended; read after done
}

// Start runs argv there (argv[0] a path there), its output to out, and returns once
// its PID is known. The process ends on Stop, or when the connection drops.
func (h *Host) Start(argv []string, out io.Writer) (*Proc, error) {
	if err := h.Alive(); err != nil {
		return nil, err
	}
	cmd := h.command(append([]string{"sh", h.Scratch + "/run.sh"}, argv...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("remote: %w", err)
	}
	p := &Proc{cmd: cmd, stdin: stdin, done: make(chan struct{})}
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			first <- sc.Text()
		}
		close(first)
		io.Copy(io.Discard, stdout)
		p.err = cmd.Wait()
		close(p.done)
	}()
	var line string
	select {
	case line = <-first:
	case <-time.After(15 * time.Second):
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(line, "pid "))
	if err != nil || !strings.HasPrefix(line, "pid ") {
		p.Stop()
		if aerr := h.Alive(); aerr != nil {
			return nil, aerr
		}
		return nil, fmt.Errorf("remote: %s: %s did not start (run.sh said %q)", h, argv[0], line)
	}
	p.PID = pid
	h.mu.Lock()
	h.procs = append(h.procs, p)
	h.mu.Unlock()
	return p, nil
}

// Done is closed once the process has ended there, or its session has (the connection
// dropped).
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err is how the session ended, once Done is closed.
func (p *Proc) Err() error { return p.err }

// stopWait is longer than run.sh's wait between SIGTERM and SIGKILL.
const stopWait = 15 * time.Second

// Stop closes the process's stdin, which makes run.sh stop it, and waits for the
// session to end; a session still open after stopWait is cut (the host then sees the
// end of stdin all the same). It reports whether the process had to be killed.
func (p *Proc) Stop() (killed bool) {
	p.stdin.Close()
	select {
	case <-p.done:
		return false
	case <-time.After(stopWait):
		p.cmd.Process.Kill()
		<-p.done
		return true
	}
}
