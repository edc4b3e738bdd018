// Package sshtest gives tests a remote host on this machine: Debian's OpenSSH server in
// a network namespace of its own (runners/measure/topology's app role), with a host key and a
// user key made for the test, and a known_hosts file that holds the host's key.
package sshtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"dbbench/runners/measure/topology"
	"dbbench/runners/results"
)

// Server is a running sshd.
type Server struct {
	URL        string // ssh://user@ADDR:PORT
	Key        string // a private key the server accepts
	WrongKey   string // one it does not know
	KnownHosts string // holds the server's host key
	Unknown    string // a known_hosts file that does not
	Tmp        string // the sessions' TMPDIR, where runs make their scratch directories
	Topo       *topology.Topology
	cmd        *exec.Cmd
	done       chan struct{}
	ns         string // sshd's network namespace, as /proc/PID/ns/net names it
}

const port = "2222"

// Start starts one for the test, stopped when it ends; it skips the test without root,
// ip or sshd.
func Start(t testing.TB) *Server {
	t.Helper()
	sshd := "/usr/sbin/sshd"
	if os.Geteuid() != 0 {
		t.Skip("sshtest: needs root: the app host is an sshd in a network namespace of its own")
	}
	if err := topology.Check(results.Netns); err != nil {
		t.Skipf("sshtest: the app host is an sshd in a network namespace of its own, and %v", err)
	}
	if _, err := os.Stat(sshd); err != nil {
		t.Skip("sshtest: the app host is Debian's sshd, and there is no /usr/sbin/sshd: apt-get install openssh-server")
	}
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	topo, err := topology.Start(context.Background(), results.Netns)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { topo.Close() })
	dir, err := os.MkdirTemp("", "sshtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &Server{Topo: topo, Key: filepath.Join(dir, "id"), WrongKey: filepath.Join(dir, "wrong"),
		KnownHosts: filepath.Join(dir, "known_hosts"), Unknown: filepath.Join(dir, "unknown_hosts"),
		Tmp: filepath.Join(dir, "tmp"),
		URL: "ssh://" + me.Username + "@" + net.JoinHostPort(topo.App.Addr, port)}
	for _, k := range []string{"host", "id", "wrong"} {
		keygen(t, filepath.Join(dir, k))
	}
	copyFile(t, s.Key+".pub", filepath.Join(dir, "authorized_keys"))
	hostPub, _ := os.ReadFile(filepath.Join(dir, "host.pub"))
	f := strings.Fields(string(hostPub))
	entry := fmt.Sprintf("[%s]:%s %s %s\n", topo.App.Addr, port, f[0], f[1])
	write(t, s.KnownHosts, entry)
	write(t, s.Unknown, "")
	// Each server's sessions get a TMPDIR of their own: a test that counts the scratch
	// directories a run left on the host must not count another package's, made at the
	// same time through its own server.
	if err := os.Mkdir(s.Tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "sshd_config")
	write(t, conf, fmt.Sprintf(`Port %s
ListenAddress %s
HostKey %s
PidFile none
AuthorizedKeysFile %s
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
AllowTcpForwarding yes
PrintMotd no
SetEnv TMPDIR=%s
`, port, topo.App.Addr, filepath.Join(dir, "host"), filepath.Join(dir, "authorized_keys"), s.Tmp))
	os.MkdirAll("/run/sshd", 0o755) // sshd's privilege separation directory
	s.cmd = topo.App.Command(sshd, "-D", "-e", "-f", conf)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.done = make(chan struct{})
	go func() { s.cmd.Wait(); close(s.done) }()
	t.Cleanup(s.Kill)
	s.waitListening(t)
	s.ns, _ = os.Readlink(fmt.Sprintf("/proc/%d/ns/net", s.cmd.Process.Pid)) // in it by now: it listens there
	return s
}

// PID is sshd's listener here: a test that counts what a run left keeps it.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// waitListening waits until sshd accepts connections.
func (s *Server) waitListening(t testing.TB) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(s.Topo.App.Addr, port), time.Second)
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-s.done:
			t.Fatal("sshd exited at start")
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd not listening after 10s: %v", err)
		}
	}
}

// Kill kills sshd and every session it serves, as a host that drops would: the
// processes its sessions run are left to notice on their own.
func (s *Server) Kill() {
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL) // the listener and its pre-session children
	for _, pid := range s.Sessions() {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	<-s.done
}

// Sessions lists the sshd processes serving connections (their own process groups).
func (s *Server) Sessions() []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.HasPrefix(string(b), "sshd: ") {
			continue
		}
		if ns, _ := os.Readlink(filepath.Join("/proc", e.Name(), "ns", "net")); ns == s.ns {
			var pid int
			fmt.Sscan(e.Name(), &pid)
			out = append(out, pid)
		}
	}
	return out
}

func keygen(t testing.TB, path string) {
	t.Helper()
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "dbbench-test", "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	write(t, to, string(b))
}

func write(t testing.TB, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
