package topology

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// removeNetns removes a whole netns topology of ours.
func removeNetns(ip string, owner, n int) error {
	return undo(ip, owner, n, nsRoles, true)
}

// undo removes the namespaces of roles (every process still in one is killed first),
// their veth pairs and, with bridge, the bridge: everything a build of subnet n by
// owner made, or the part it got to. Links and namespaces already gone are no error.
func undo(ip string, owner, n int, roles []string, bridge bool) error {
	for _, role := range roles {
		killIn(ip, nsName(owner, n, role))
	}
	var errs []error
	for _, args := range undoSteps(owner, n, roles, bridge) {
		errs = append(errs, gone(ipRun(ip, args...)))
	}
	return errors.Join(errs...)
}

// undoSteps are undo's ip commands in order: the bridge first, then each role's veth
// and its namespace. No link of ours is then ever left without a namespace of its run,
// so another runner's sweep, or Left, looking while we remove, never takes one of our
// links for an orphan (a check in make test once did, when the bridge went last).
// Without the bridge no link is deleted: a build makes its veths only once it holds the
// bridge, and veth names carry no owner, so those of subnet n would be the run's that
// won the subnet (a dead owner's go with its namespace, or with the sweep's orphans).
func undoSteps(owner, n int, roles []string, bridge bool) [][]string {
	var out [][]string
	if bridge {
		out = append(out, []string{"link", "del", bridgeName(n)})
	}
	for _, role := range roles {
		if bridge {
			out = append(out, []string{"link", "del", vethName(n, role)})
		}
		out = append(out, []string{"netns", "del", nsName(owner, n, role)})
	}
	return out
}

// gone forgives an error that says the thing to remove was not there.
func gone(err error) error {
	if err == nil {
		return nil
	}
	s := err.Error()
	if strings.Contains(s, "Cannot find device") || strings.Contains(s, "No such file") {
		return nil
	}
	return err
}

// killIn kills every process in namespace ns and waits a little for them to go: a
// process left in it (its runner killed, a target that ignored SIGTERM) would keep
// the namespace, and its veth, alive after the name is gone.
func killIn(ip, ns string) {
	out, err := exec.Command(ip, "netns", "pids", ns).Output()
	if err != nil {
		return
	}
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 && pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
			pids = append(pids, pid)
		}
	}
	for deadline := time.Now().Add(5 * time.Second); len(pids) > 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		pids = slices.DeleteFunc(pids, func(pid int) bool { return !alive(pid) || zombie(pid) })
	}
}

// zombie says whether pid has exited and waits for its parent to reap it (a zombie
// has left its namespaces already).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && len(b) > i+2 && b[i+2] == 'Z'
}

var (
	nsPattern   = regexp.MustCompile(`^dbbench-(\d+)-(\d+)-(db|app)$`)
	linkPattern = regexp.MustCompile(`^dbbench(\d+)(db|app)?$`)
)

// parseNS reads a namespace name of ours back: its owner's PID and its subnet.
func parseNS(name string) (owner, n int, role string, ok bool) {
	m := nsPattern.FindStringSubmatch(name)
	if m == nil {
		return 0, 0, "", false
	}
	owner, _ = strconv.Atoi(m[1])
	n, _ = strconv.Atoi(m[2])
	return owner, n, m[3], true
}

// alive says whether process pid exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) != syscall.ESRCH }

// sweepStale removes the topologies of runners that are gone (killed outright, where
// no cleanup could run): their namespaces, the processes still in them, and every link
// of a subnet no live runner's namespace names.
func sweepStale(ip string) {
	for _, name := range namespaces() {
		owner, n, role, _ := parseNS(name)
		if !alive(owner) {
			undo(ip, owner, n, []string{role}, false)
		}
	}
	for _, l := range orphanLinks() {
		gone(ipRun(ip, "link", "del", l))
	}
}

// freeSubnet picks N for 10.77.N.0/24: one no namespace or link of ours uses and no
// address or route of this host overlaps. The search starts at a place of owner's, so
// that runs starting together rarely reach for the same one.
func freeSubnet(ip string, owner int) (int, error) {
	used := map[int]bool{}
	for _, name := range namespaces() {
		_, n, _, _ := parseNS(name)
		used[n] = true
	}
	for _, l := range ourLinks() {
		used[linkSubnet(l)] = true
	}
	nets, err := hostNets(ip)
	if err != nil {
		return 0, err
	}
	for i := range 254 {
		n := 1 + (owner+i)%254
		_, sub, _ := net.ParseCIDR(fmt.Sprintf("10.77.%d.0/24", n))
		if !used[n] && !overlaps(sub, nets) {
			return n, nil
		}
	}
	return 0, errors.New("topology: no free subnet in 10.77.0.0/16: every /24 is in use")
}

// hostNets are the IPv4 networks this host's addresses and routes cover.
func hostNets(ip string) ([]*net.IPNet, error) {
	var out []*net.IPNet
	for _, args := range [][]string{{"-4", "-o", "addr", "show"}, {"-4", "route", "show", "table", "all"}} {
		b, err := exec.Command(ip, args...).Output()
		if err != nil {
			return nil, fmt.Errorf("topology: ip %s: %w", strings.Join(args, " "), err)
		}
		for _, f := range strings.Fields(string(b)) {
			if !strings.Contains(f, ".") {
				continue
			}
			if !strings.Contains(f, "/") {
				f += "/32"
			}
			if _, n, err := net.ParseCIDR(f); err == nil && n.IP.To4() != nil {
				out = append(out, n)
			}
		}
	}
	return out, nil
}

func overlaps(a *net.IPNet, nets []*net.IPNet) bool {
	for _, b := range nets {
		if a.Contains(b.IP) || b.Contains(a.IP) {
			return true
		}
	}
	return false
}
