package remote

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// quote makes s one word of a POSIX shell command line.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// command is ssh running argv there over the shared connection.
func (h *Host) command(argv ...string) *exec.Cmd {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = quote(a)
	}
	args := append([]string{"-S", h.sock(), "-o", "ControlMaster=no", "-o", "BatchMode=yes", "-T"}, h.target()...)
	cmd := exec.Command("ssh", append(args, "--", strings.Join(words, " "))...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// script runs a POSIX shell script there with args, stdin from in (nil: none), and
// returns its standard output.
func (h *Host) script(ctx context.Context, in io.Reader, script string, args ...string) ([]byte, error) {
	if err := h.Alive(); err != nil {
		return nil, err
	}
	cmd := h.command(append([]string{"sh", "-c", script, "sh"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("remote: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			if aerr := h.Alive(); aerr != nil {
				return nil, aerr
			}
			return nil, fmt.Errorf("remote: %s: %v: %s", h, err, strings.TrimSpace(stderr.String()))
		}
		return stdout.Bytes(), nil
	case <-ctx.Done():
		cmd.Process.Kill()
		<-done
		return nil, ctx.Err()
	}
}

// prepare sweeps the scratch directories of runners of this host that are gone (killed
// outright, where no cleanup could run), makes this run's, and learns the addresses and
// what the host is.
func (h *Host) prepare(ctx context.Context) error {
	owner := ownerTag()
	out, err := h.script(ctx, nil, `for f in "${TMPDIR:-/tmp}"/dbbench-app-*/owner; do
  [ -r "$f" ] && printf '%s %s\n' "${f%/owner}" "$(cat "$f")"
done; true`)
	if err != nil {
		return err
	}
	if stale := staleDirs(string(out), owner); len(stale) > 0 {
		var dirs []string
		for _, d := range stale {
			dirs = append(dirs, d.dir)
		}
		if _, err := h.script(ctx, nil, `rm -rf "$@"`, dirs...); err != nil {
			return err
		}
		for _, d := range stale {
			h.logf("app host %s: removed %s, left by a run from %s that is gone (its reaper did not run: the host went down with it)", h, d.dir, d.owner)
		}
	}
	out, err = h.script(ctx, nil, `set -e
d=$(mktemp -d "${TMPDIR:-/tmp}/dbbench-app-XXXXXX")
printf '%s\n' "$1" > "$d/owner"
printf '%s\n' "$2" > "$d/run.sh"
echo "$d"
echo "$SSH_CONNECTION"
uname -m
uname -r
nproc 2>/dev/null || echo unknown
m=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2-)
echo "${m:-unknown}"`, owner, runScript)
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 6 {
		return fmt.Errorf("remote: %s: unexpected answer to the set-up: %q", h, out)
	}
	h.Scratch = lines[0]
	if err := h.startReaper(); err != nil {
		return err
	}
	conn := strings.Fields(lines[1]) // client-ip client-port server-ip server-port
	if len(conn) != 4 {
		return fmt.Errorf("remote: %s: $SSH_CONNECTION is %q", h, lines[1])
	}
	h.Self, h.Addr = conn[0], conn[2]
	// Keys as the run's own environment block names them (kernel: the release).
	h.Env = map[string]string{"arch": lines[2], "kernel": lines[3], "cpu-count": lines[4], "cpu": strings.TrimSpace(lines[5])}
	h.logf("app host %s: %s, %s cores, %s; scratch %s", h, h.Env["cpu"], h.Env["cpu-count"], h.Env["kernel"], h.Scratch)
	return nil
}

// ownerTag names this runner among those of every host: "hostname pid".
func ownerTag() string {
	name, _ := os.Hostname()
	return name + " " + strconv.Itoa(os.Getpid())
}

// staleDir is a scratch directory whose runner is gone, and the runner ("HOSTNAME PID").
type staleDir struct{ dir, owner string }

// staleDirs picks the directories of listing ("DIR HOSTNAME PID" lines) whose owner ran
// on this host and is gone.
func staleDirs(listing, owner string) []staleDir {
	self, _, _ := strings.Cut(owner, " ")
	var out []staleDir
	for _, l := range strings.Split(listing, "\n") {
		f := strings.Fields(l)
		if len(f) != 3 || f[1] != self {
			continue
		}
		if pid, err := strconv.Atoi(f[2]); err == nil && syscall.Kill(pid, 0) == syscall.ESRCH {
			out = append(out, staleDir{f[0], f[1] + " pid " + f[2]})
		}
	}
	return out
}

// reapScript waits for its standard input to close, then removes the scratch
// directory ($1). The runner holds the input open for the connection's life: a runner
// killed outright or a connection that drops closes it, and the host removes what the
// runner put there (the target's binary, its DSN files) at once, with no next run
// needed. It ignores the hang-up and termination a dying session may send.
const reapScript = `trap '' HUP TERM PIPE
echo ready
cat >/dev/null 2>&1
rm -rf "$1"`

// startReaper starts the session that removes the scratch directory when the
// connection goes (reapScript), and returns once it runs there: a drop right after
// the set-up must find it waiting.
func (h *Host) startReaper() error {
	cmd := h.command("sh", "-c", reapScript, "sh", h.Scratch)
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("remote: %w", err)
	}
	h.reaper, h.reaperIn = cmd, in
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- strings.TrimSpace(line) == "ready"
		io.Copy(io.Discard, out)
	}()
	select {
	case ok := <-ready:
		if ok {
			return nil
		}
	case <-time.After(15 * time.Second):
	}
	h.stopReaper()
	if err := h.Alive(); err != nil {
		return err
	}
	return fmt.Errorf("remote: %s: the session that removes the scratch directory did not start", h)
}

// stopReaper closes the reaper's input, which makes it remove the scratch directory
// (if Close has not), and waits for it a few seconds.
func (h *Host) stopReaper() {
	if h.reaper == nil {
		return
	}
	h.reaperIn.Close()
	done := make(chan struct{})
	go func() { h.reaper.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		h.reaper.Process.Kill()
		<-done
	}
	h.reaper = nil
}

// Close stops every process started there, removes the scratch directory, ends the
// connection and removes the control directory. Safe to call twice.
func (h *Host) Close() error {
	if h == nil || h.dir == "" {
		return nil
	}
	var errs []string
	h.mu.Lock()
	procs := h.procs
	h.procs = nil
	h.mu.Unlock()
	for _, p := range procs {
		p.Stop()
	}
	if h.Scratch != "" && h.Alive() == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if _, err := h.script(ctx, nil, `rm -rf "$1"`, h.Scratch); err != nil {
			errs = append(errs, "remove "+h.Scratch+": "+err.Error())
		}
		cancel()
	}
	h.stopReaper()
	if h.master != nil {
		exec.Command("ssh", append([]string{"-S", h.sock(), "-O", "exit"}, h.target()...)...).Run()
		select {
		case <-h.done:
		case <-time.After(5 * time.Second):
			h.master.Process.Kill()
			<-h.done
		}
	}
	os.RemoveAll(h.dir)
	h.dir = ""
	if len(errs) > 0 {
		return fmt.Errorf("remote: %s: %s", h, strings.Join(errs, "; "))
	}
	return nil
}

func (h *Host) logf(format string, a ...any) {
	if h.o.Log != nil {
		fmt.Fprintf(h.o.Log, format+"\n", a...)
	}
}
