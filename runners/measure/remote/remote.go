// Package remote is a host reached over OpenSSH where the runner starts Go targets
// (dbbench run --app-host ssh://user@host[:port]). One multiplexed connection per host
// (ControlMaster, its socket in a private directory of ours) carries every command;
// the host's key must be in known_hosts (an unknown host is refused, never added), and
// only key authentication is tried. Files go to a scratch directory there, removed at
// Close, or by the host itself when the connection goes; a process started there ends
// when its session does, so a runner or a connection that dies leaves nothing running
// on the host, and no file (a DSN file is removed by the target that reads it).
package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"dbbench/dsn"
)

// Options say how to reach a host.
type Options struct {
	Key        string    // the private key (ssh -i); "" leaves it to ssh (~/.ssh/id_*, ssh-agent)
	KnownHosts string    // the known_hosts file; "" leaves it to ssh (~/.ssh/known_hosts)
	Log        io.Writer // progress lines; nil: none
}

// Host is a connected host.
type Host struct {
	User, Name string
	Port       int
	// Addr is the host's address as this one reaches it, and Self this host's address
	// as the host sees it: the two ends of the SSH connection ($SSH_CONNECTION there).
	Addr, Self string
	// Scratch is the private directory there that holds what the runner copies.
	Scratch string
	// Env is what the host is: arch, kernel, cpu, cpu-count.
	Env map[string]string

	o      Options
	dir    string // ours, 0700: the control socket
	master *exec.Cmd
	done   chan struct{} // closed when the master has exited
	stderr *bytes.Buffer // the master's
	mu     sync.Mutex
	procs  []*Proc
	copied map[string]string // local path -> path there
	// reaper is the session that removes Scratch when the connection goes
	// (reapScript); closing reaperIn ends it.
	reaper   *exec.Cmd
	reaperIn io.WriteCloser
}

// ParseURL reads ssh://user@host[:port].
func ParseURL(s string) (user, host string, port int, err error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "ssh" || u.User == nil || u.User.Username() == "" || u.Hostname() == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return "", "", 0, fmt.Errorf("%q: want ssh://user@host[:port]", dsn.RedactURL(s))
	}
	if _, hasPass := u.User.Password(); hasPass {
		return "", "", 0, fmt.Errorf("%q: no password in the URL: the host is reached by key only", dsn.RedactURL(s))
	}
	port = 22
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil || port < 1 || port > 65535 {
			return "", "", 0, fmt.Errorf("%q: port %q is not 1 to 65535", dsn.RedactURL(s), p)
		}
	}
	return u.User.Username(), u.Hostname(), port, nil
}

// String is the host as the URL names it.
func (h *Host) String() string { return fmt.Sprintf("ssh://%s@%s:%d", h.User, h.Name, h.Port) }

// Connect opens the multiplexed connection to rawURL and prepares the scratch
// directory. An unknown host key or a refused key is ErrHostKey or ErrAuth, in one line
// that says what to do.
func Connect(ctx context.Context, rawURL string, o Options) (*Host, error) {
	user, name, port, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		return nil, errors.New("remote: no ssh on PATH: install OpenSSH's client (apt-get install openssh-client)")
	}
	h := &Host{User: user, Name: name, Port: port, o: o, copied: map[string]string{}}
	if h.dir, err = os.MkdirTemp("", "dbbench-ssh-"); err != nil {
		return nil, fmt.Errorf("remote: %w", err)
	}
	if err := h.startMaster(ctx); err != nil {
		h.Close() // the control directory, and a master that is still trying
		return nil, err
	}
	if err := h.prepare(ctx); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

// sock is the control socket.
func (h *Host) sock() string { return filepath.Join(h.dir, "c") }

// target is the host in ssh's arguments.
func (h *Host) target() []string {
	return []string{"-p", strconv.Itoa(h.Port), "-l", h.User, h.Name}
}

// startMaster starts the one connection every command shares, and waits until it is
// up, or says why it never came.
func (h *Host) startMaster(ctx context.Context) error {
	args := []string{"-M", "-S", h.sock(), "-N",
		"-o", "ControlPersist=no", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
		"-o", "PasswordAuthentication=no", "-o", "KbdInteractiveAuthentication=no",
		"-o", "ConnectTimeout=10", "-o", "ServerAliveInterval=2", "-o", "ServerAliveCountMax=3"}
	if h.o.Key != "" {
		args = append(args, "-i", h.o.Key, "-o", "IdentitiesOnly=yes")
	}
	if h.o.KnownHosts != "" {
		args = append(args, "-o", "UserKnownHostsFile="+h.o.KnownHosts, "-o", "GlobalKnownHostsFile=/dev/null")
	}
	h.master = exec.Command("ssh", append(args, h.target()...)...)
	h.stderr = &bytes.Buffer{}
	h.master.Stderr = &lockedBuffer{b: h.stderr, mu: &h.mu}
	h.master.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := h.master.Start(); err != nil {
		return fmt.Errorf("remote: start ssh: %w", err)
	}
	h.done = make(chan struct{})
	go func() { h.master.Wait(); close(h.done) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if exec.Command("ssh", append([]string{"-S", h.sock(), "-O", "check"}, h.target()...)...).Run() == nil {
			return nil
		}
		select {
		case <-h.done:
			return h.refusal()
		case <-ctx.Done():
			return fmt.Errorf("remote: connecting to %s interrupted: %w", h, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("remote: %s: no connection after 20s: %s", h, h.masterSays())
		}
	}
}

// Alive says whether the connection is still up.
func (h *Host) Alive() error {
	select {
	case <-h.done:
		return fmt.Errorf("the connection to %s dropped: %s", h, h.masterSays())
	default:
		return nil
	}
}

// Check asks the host to answer (a command's round trip over the connection), for
// when something failed and the connection may be the reason: an error says the host
// is gone or does not answer within 10 s.
func (h *Host) Check(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := h.script(cctx, nil, "true"); err != nil {
		if aerr := h.Alive(); aerr != nil {
			return aerr
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%s does not answer: %v", h, err)
	}
	return nil
}

// masterSays is the master's last line on stderr.
func (h *Host) masterSays() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(h.stderr.String()), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		return last
	}
	return "ssh said nothing"
}

type lockedBuffer struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
