package topology

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"

	"dbbench/runners/measure/freeport"
)

// Role is one role's place: its address and, in a netns topology, its namespace.
type Role struct {
	Name  string // load, app, db
	Addr  string // the IP the other roles reach it at
	Netns string // its network namespace; "" for this host's own
	Host  string // another machine the role runs on (ssh://user@host:port); "" for this one
	// Link is the interface in the root namespace that carries the role's traffic: the
	// root end of its veth, or the bridge for the load role; "" on loopback, where
	// every role shares lo with the rest of the machine.
	Link  string
	ip    string       // iproute2's ip, for Command
	ports atomic.Int32 // the last port handed out in Netns
}

// firstPort is where ports in a namespace start: below the ephemeral range (32768 on),
// so no outgoing connection holds one. Nothing but our own servers listens in a
// namespace of ours, so counting up never meets a port taken.
const firstPort = 20000

// Command is exec.Command for a process that runs in the role's namespace: prefixed
// with `ip netns exec NAME`, which enters the namespace and execs the program in the
// same process, so its PID is the one the caller gets (and /proc/PID stays readable:
// the PID namespace is shared).
func (r *Role) Command(bin string, args ...string) *exec.Cmd {
	if r.Netns == "" {
		return exec.Command(bin, args...)
	}
	return exec.Command(r.ip, append([]string{"netns", "exec", r.Netns, bin}, args...)...)
}

// FreeAddr returns Addr:PORT with a port nothing listens on, for a server of the role
// that the other roles reach.
func (r *Role) FreeAddr() (string, error) { return r.free(r.Addr) }

// FreeLoopback returns a free 127.0.0.1:PORT of the role's own loopback, for a server
// only the role's host should reach (a Go target's pprof); Forward makes it reachable
// from the runner.
func (r *Role) FreeLoopback() (string, error) { return r.free("127.0.0.1") }

func (r *Role) free(ip string) (string, error) {
	if r.Netns != "" {
		p := firstPort + int(r.ports.Add(1))
		if p >= 32768 {
			return "", fmt.Errorf("topology: %s: no port left below the ephemeral range", r.Netns)
		}
		return net.JoinHostPort(ip, strconv.Itoa(p)), nil
	}
	p, err := freeport.On(ip)
	if err != nil {
		return "", fmt.Errorf("topology: %w", err)
	}
	return net.JoinHostPort(ip, strconv.Itoa(p)), nil
}

// Dial connects from the role's namespace: the socket is made there, so the
// connection leaves through the role's own interface and its source is the role's
// address (or its loopback, for a loopback address of the role's).
func (r *Role) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	if r.Netns == "" {
		return d.DialContext(ctx, network, addr)
	}
	var c net.Conn
	err := inNetns(r.Netns, func() (err error) {
		c, err = d.DialContext(ctx, network, addr)
		return err
	})
	return c, err
}

// Listen listens in the role's namespace.
func (r *Role) Listen(network, addr string) (net.Listener, error) {
	if r.Netns == "" {
		return net.Listen(network, addr)
	}
	var l net.Listener
	err := inNetns(r.Netns, func() (err error) {
		l, err = net.Listen(network, addr)
		return err
	})
	return l, err
}

// Bytes is what the role's link carried so far, seen from the root namespace: in is
// what the role received, out what it sent. ok is false on loopback.
func (r *Role) Bytes() (in, out int64, ok bool) {
	if r.Link == "" {
		return 0, 0, false
	}
	rx, err1 := counter(r.Link, "rx_bytes")
	tx, err2 := counter(r.Link, "tx_bytes")
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	if r.Netns == "" { // the bridge: its own traffic, as the root namespace's interface
		return rx, tx, true
	}
	return tx, rx, true // the root end of a veth sends what the role receives
}

func counter(link, name string) (int64, error) {
	b, err := os.ReadFile("/sys/class/net/" + link + "/statistics/" + name)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}
