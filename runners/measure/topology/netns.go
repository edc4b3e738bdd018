package topology

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	"dbbench/runners/results"
)

// Host numbers in 10.77.N.0/24.
var hostNumber = map[string]int{Load: 1, DB: 2, App: 3}

func nsName(owner, n int, role string) string { return fmt.Sprintf("dbbench-%d-%d-%s", owner, n, role) }
func bridgeName(n int) string                 { return fmt.Sprintf("dbbench%d", n) }
func vethName(n int, role string) string      { return bridgeName(n) + role }
func roleAddr(n int, role string) string      { return fmt.Sprintf("10.77.%d.%d", n, hostNumber[role]) }

// nsRoles are the roles with a namespace of their own; the load role is the runner,
// in the root namespace, at the bridge's address.
var nsRoles = []string{DB, App}

// errTaken says another run took the subnet between our look and our claim.
var errTaken = errors.New("subnet taken")

func startNetns(ctx context.Context) (*Topology, error) {
	ip, err := lookIP()
	if err != nil {
		return nil, err
	}
	sweepStale(ip)
	owner := os.Getpid()
	for range 5 {
		n, err := freeSubnet(ip, owner)
		if err != nil {
			return nil, err
		}
		t, err := build(ctx, ip, owner, n)
		if !errors.Is(err, errTaken) {
			return t, err
		}
	}
	return nil, errors.New("topology: every subnet tried was taken by another run meanwhile")
}

// build makes the namespaces first (their names carry our PID: a sweep leaves the
// subnet of a live owner alone), then claims the subnet by creating its bridge, which
// fails if another run claimed it first, then links each namespace to the bridge.
func build(ctx context.Context, ip string, owner, n int) (t *Topology, err error) {
	var made []string // namespaces made so far
	bridge := false
	defer func() {
		if err != nil {
			undo(ip, owner, n, made, bridge)
		}
	}()
	for _, role := range nsRoles {
		if err := step(ctx, ip, "netns", "add", nsName(owner, n, role)); err != nil {
			return nil, err
		}
		made = append(made, role)
	}
	if err := step(ctx, ip, "link", "add", bridgeName(n), "type", "bridge"); err != nil {
		if strings.Contains(err.Error(), "File exists") {
			return nil, errTaken
		}
		return nil, err
	}
	bridge = true
	t = &Topology{Kind: results.Netns, subnet: n, ip: ip, owner: owner}
	t.Load = &Role{Name: Load, Addr: roleAddr(n, Load), Link: bridgeName(n), ip: ip}
	if err := steps(ctx, ip,
		[]string{"addr", "add", t.Load.Addr + "/24", "dev", bridgeName(n)},
		[]string{"link", "set", bridgeName(n), "up"}); err != nil {
		return nil, err
	}
	for _, role := range nsRoles {
		r, err := link(ctx, ip, owner, n, role)
		if err != nil {
			return nil, err
		}
		if role == DB {
			t.DB = r
		} else {
			t.App = r
		}
	}
	if err := probe(ctx, t); err != nil {
		return nil, err
	}
	return t, nil
}

// link joins role's namespace to the bridge: a veth pair whose namespace end is eth0.
func link(ctx context.Context, ip string, owner, n int, role string) (*Role, error) {
	ns, veth, addr := nsName(owner, n, role), vethName(n, role), roleAddr(n, role)
	err := steps(ctx, ip,
		[]string{"link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns},
		[]string{"link", "set", veth, "master", bridgeName(n), "up"},
		[]string{"-n", ns, "addr", "add", addr + "/24", "dev", "eth0"},
		[]string{"-n", ns, "link", "set", "eth0", "up"},
		[]string{"-n", ns, "link", "set", "lo", "up"})
	if err != nil {
		return nil, err
	}
	return &Role{Name: role, Addr: addr, Netns: ns, Link: veth, ip: ip}, nil
}

// probe connects app to db and the runner to both, so that a network that drops what
// crosses the bridge (a firewall) stops the run here, saying so, not at its first query.
func probe(ctx context.Context, t *Topology) error {
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for _, to := range []*Role{t.DB, t.App} {
		l, err := to.Listen("tcp", net.JoinHostPort(to.Addr, "0"))
		if err != nil {
			return fmt.Errorf("topology: listen in %s: %w", to.Netns, err)
		}
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		for _, from := range []*Role{t.Load, t.App} {
			if from == to {
				continue
			}
			c, err := from.Dial(pctx, "tcp", l.Addr().String())
			if err != nil {
				l.Close()
				return fmt.Errorf("topology: %s (%s) cannot reach %s (%s) across bridge %s: %w", from.Name, from.Addr, to.Name, to.Addr, bridgeName(t.subnet), err)
			}
			c.Close()
		}
		l.Close()
	}
	return nil
}

// steps runs ip with each argument list in turn, stopping at the first error or once
// ctx has ended (an interrupt during set-up): the caller undoes what was made.
func steps(ctx context.Context, ip string, args ...[]string) error {
	for _, a := range args {
		if err := step(ctx, ip, a...); err != nil {
			return err
		}
	}
	return nil
}

// step runs one ip command. It is not tied to ctx: an ip killed half way could leave
// what it made unnamed; ctx is checked before each command instead.
func step(ctx context.Context, ip string, args ...string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("topology: set-up interrupted: %w", err)
	}
	return ipRun(ip, args...)
}

func ipRun(ip string, args ...string) error {
	var stderr bytes.Buffer
	cmd := exec.Command(ip, args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("topology: ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}
