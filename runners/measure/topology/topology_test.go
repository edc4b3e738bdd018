package topology

import (
	"context"
	"dbbench/runners/results"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestNames(t *testing.T) {
	name := nsName(4194304, 254, App)
	owner, n, role, ok := parseNS(name)
	if !ok || owner != 4194304 || n != 254 || role != App {
		t.Fatalf("parseNS(%q) = %d %d %q %v", name, owner, n, role, ok)
	}
	// Linux caps interface names at 15 bytes.
	if l := vethName(254, App); len(l) > 15 {
		t.Fatalf("veth name %q is %d bytes", l, len(l))
	}
	for _, bad := range []string{"dbbench-1-2-web", "dbbench-x-2-db", "other", "dbbench-1-db"} {
		if _, _, _, ok := parseNS(bad); ok {
			t.Errorf("parseNS accepted %q", bad)
		}
	}
}

// Removing a topology, whole or the part a build got to, never leaves a link of ours
// without a namespace of its run, at any step: another runner looking meanwhile must
// not take it for an orphan (and delete it, or report it left behind). A build that
// lost its subnet's bridge to another run deletes no link: they are the other run's.
func TestUndoNeverLeavesALinkWithoutANamespace(t *testing.T) {
	const owner, n = 4242, 77
	for _, c := range []struct {
		roles  []string
		bridge bool
	}{{nsRoles, true}, {[]string{DB}, true}, {nsRoles, false}, {[]string{DB}, false}} {
		exists := map[string]bool{} // what build made: namespaces, then the bridge, then veths
		for _, role := range c.roles {
			exists[nsName(owner, n, role)] = true
		}
		if c.bridge {
			exists[bridgeName(n)] = true
			for _, role := range c.roles {
				exists[vethName(n, role)] = true
			}
		}
		for i, args := range undoSteps(owner, n, c.roles, c.bridge) {
			if !c.bridge && args[0] == "link" { // the subnet's links are another run's
				t.Errorf("%v without the bridge: ip %s", c.roles, strings.Join(args, " "))
			}
			delete(exists, args[len(args)-1])
			links, namespaces := 0, 0
			for name := range exists {
				if _, _, _, ok := parseNS(name); ok {
					namespaces++
				} else if linkSubnet(name) == n {
					links++
				}
			}
			if links > 0 && namespaces == 0 {
				t.Errorf("%v bridge %v: after step %d (ip %s), links without a namespace: %v",
					c.roles, c.bridge, i, strings.Join(args, " "), exists)
			}
		}
		if len(exists) > 0 {
			t.Errorf("%v bridge %v: left %v", c.roles, c.bridge, exists)
		}
	}
}

func TestCheckSaysWhatIsMissing(t *testing.T) {
	defer func(e func() int, l func() (string, error)) { geteuid, lookIP = e, l }(geteuid, lookIP)
	geteuid = func() int { return 1000 }
	if err := Check(results.Netns); err == nil || !strings.Contains(err.Error(), "needs root") {
		t.Errorf("not root: %v", err)
	}
	geteuid = func() int { return 0 }
	lookIP = func() (string, error) { return "", errors.New("no ip") }
	if err := Check(results.Netns); err == nil || !strings.Contains(err.Error(), "iproute2") {
		t.Errorf("no ip: %v", err)
	}
	if err := Check(results.Loopback); err != nil {
		t.Errorf("loopback: %v", err)
	}
	if err := Check("ring"); err == nil {
		t.Error("an unknown kind passed")
	}
}

func needNetns(t *testing.T) {
	t.Helper()
	if err := Check(results.Netns); err != nil {
		t.Skip(err)
	}
}

// A netns topology: each role reaches the others over the bridge from its own address,
// a process started in a role's namespace has the PID the caller sees, and Close
// leaves nothing.
func TestNetnsRolesTalkOverTheirLinks(t *testing.T) {
	needNetns(t)
	topo, err := Start(context.Background(), results.Netns)
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Close()
	l, err := topo.DB.Listen("tcp", net.JoinHostPort(topo.DB.Addr, "3306"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	from := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		from <- c.RemoteAddr().(*net.TCPAddr).IP.String()
		io.Copy(c, c)
	}()
	in0, _, _ := topo.App.Bytes()
	c, err := topo.App.Dial(context.Background(), "tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Write(make([]byte, 100000))
	io.ReadFull(c, make([]byte, 100000))
	c.Close()
	if got := <-from; got != topo.App.Addr {
		t.Errorf("the database saw the app come from %s, want %s", got, topo.App.Addr)
	}
	if in1, _, ok := topo.App.Bytes(); !ok || in1-in0 < 100000 {
		t.Errorf("the app's veth carried %d bytes in, want 100000 or more (ok %v)", in1-in0, ok)
	}
	// A process in the namespace: its own PID, its own network.
	cmd := topo.App.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	want, _ := os.Readlink("/proc/self/ns/net")
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if got, _ := os.Readlink("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/ns/net"); got != want && got != "" {
			want = ""
			break
		}
	}
	if want != "" {
		t.Error("the process started in the app's namespace is not in another network namespace")
	}
	// Close kills what is still in a namespace (the sleep) and removes everything.
	if err := topo.Close(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if left := Left(os.Getpid()); len(left) > 0 {
		t.Fatalf("left after Close: %v", left)
	}
}

// An interrupt at any step of the set-up leaves nothing.
func TestInterruptAtEveryStepLeavesNothing(t *testing.T) {
	needNetns(t)
	for k := 0; ; k++ {
		ctx := &cancelAfter{Context: context.Background(), left: int32(k)}
		topo, err := Start(ctx, results.Netns)
		if err == nil {
			topo.Close()
			if k < 5 {
				t.Fatalf("set-up took only %d steps", k)
			}
			break
		}
		if !strings.Contains(err.Error(), "interrupted") {
			t.Fatalf("step %d: %v", k, err)
		}
		if left := Left(os.Getpid()); len(left) > 0 {
			t.Fatalf("interrupted after %d steps, left: %v", k, left)
		}
	}
}

// cancelAfter is a context whose Err turns to Canceled after left calls.
type cancelAfter struct {
	context.Context
	left int32
}

func (c *cancelAfter) Err() error {
	if atomic.AddInt32(&c.left, -1) < 0 {
		return context.Canceled
	}
	return nil
}

// A topology whose runner was killed is removed by the next Start, the processes in
// it included.
func TestStartSweepsTheTopologyOfADeadRunner(t *testing.T) {
	needNetns(t)
	// The runner lives until its topology is made, with a process in it, and dies only
	// then: a sweep by any other run (another package's test) while we made it would
	// otherwise remove it from under us.
	runner := exec.Command("sleep", "600")
	if err := runner.Start(); err != nil {
		t.Fatal(err)
	}
	defer runner.Process.Kill()
	ip, _ := lookIP()
	owner := runner.Process.Pid
	n, err := freeSubnet(ip, owner)
	if err != nil {
		t.Fatal(err)
	}
	stale, err := build(context.Background(), ip, owner, n)
	if err != nil {
		t.Fatal(err)
	}
	orphan := stale.App.Command("sleep", "60")
	orphan.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { orphan.Wait(); close(done) }()
	// `ip netns exec` enters the namespace, then execs sleep in the same process: until
	// then the namespace lists no process, and a sweep finds nothing to kill (make test
	// from a fresh clone once swept in that gap, while the runner was already dead, and
	// left sleep running).
	waitExec(t, orphan.Process.Pid, "sleep")
	runner.Process.Kill()
	runner.Wait()
	topo, err := Start(context.Background(), results.Netns)
	if err != nil {
		t.Fatal(err)
	}
	topo.Close()
	if left := Left(owner); len(left) > 0 {
		t.Fatalf("the dead runner's topology is still there: %v", left)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the process in the dead runner's namespace still runs")
	}
}

// waitExec waits until process pid runs program name: after `ip netns exec` has
// entered the namespace and exec'ed it.
func waitExec(t *testing.T, pid int, name string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); err == nil && strings.TrimSpace(string(b)) == name {
			return
		}
	}
	t.Fatalf("process %d never became %s", pid, name)
}
