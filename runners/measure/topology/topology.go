// Package topology places a run's three roles — the load generator (the runner itself),
// the targets (app) and the database — and links them: all on this host's loopback
// (the default), or each in a network namespace of its own behind a bridge (netns), so
// that their traffic crosses real TCP stacks between real interfaces as it would
// between three hosts.
//
// A netns topology is named after the runner's PID and its subnet, 10.77.N.0/24: the
// bridge dbbenchN (10.77.N.1, the load role, in the root namespace), and the namespaces
// dbbench-PID-N-db (10.77.N.2) and dbbench-PID-N-app (10.77.N.3), each joined to the
// bridge by a veth pair whose root end is dbbenchNdb or dbbenchNapp. Close removes it
// all; a topology whose runner was killed outright is removed by the next Start.
package topology

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"dbbench/runners/measure/remote"
	"dbbench/runners/results"
)

// Kinds lists those --topology takes (results.SSH is --app-host's, OverSSH).
var Kinds = []results.TopologyKind{results.Loopback, results.Netns}

// Role names, as results records them.
const (
	Load = results.RoleLoad
	App  = results.RoleApp
	DB   = results.RoleDB
)

// Topology is where the roles run.
type Topology struct {
	Kind          results.TopologyKind
	Load, App, DB *Role
	// Remote is the app's host on SSH: the targets run there, the rest here.
	Remote *remote.Host
	subnet int    // N of 10.77.N.0/24; 0 on loopback
	ip     string // iproute2's ip
	owner  int    // the PID in the namespaces' names
}

// Roles lists the roles in the order results name them.
func (t *Topology) Roles() []*Role { return []*Role{t.Load, t.App, t.DB} }

// geteuid and lookIP are variables so that Check can be tested without dropping root.
var (
	geteuid = os.Geteuid
	lookIP  = func() (string, error) { return lookSbin("ip") }
)

// Check says whether kind can be built here, in one line when it cannot.
func Check(kind results.TopologyKind) error {
	switch kind {
	case "", results.Loopback:
		return nil
	case results.Netns:
		if geteuid() != 0 {
			return errors.New("netns needs root (it makes network namespaces and veth pairs): run as root, or leave --topology out to run on loopback")
		}
		if _, err := lookIP(); err != nil {
			return errors.New("netns needs iproute2's ip, found neither on PATH nor in /usr/sbin or /sbin: apt-get install iproute2")
		}
		return nil
	}
	return fmt.Errorf("unknown topology %q (want one of %s, %s)", kind, results.Loopback, results.Netns)
}

// Start builds a topology of kind. On any error, or when ctx ends during it, what was
// built is removed again.
func Start(ctx context.Context, kind results.TopologyKind) (*Topology, error) {
	if err := Check(kind); err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	if kind == "" || kind == results.Loopback {
		return loopback(), nil
	}
	return startNetns(ctx)
}

// loopback is every role on this host's 127.0.0.1.
func loopback() *Topology {
	t := &Topology{Kind: results.Loopback}
	t.Load, t.App, t.DB = &Role{Name: Load, Addr: "127.0.0.1"}, &Role{Name: App, Addr: "127.0.0.1"}, &Role{Name: DB, Addr: "127.0.0.1"}
	return t
}

// OverSSH is the app on h, the load generator and the database here, at the address
// h sees this host at (so that the targets reach the database and the proxies).
func OverSSH(h *remote.Host) *Topology {
	return &Topology{Kind: results.SSH, Remote: h,
		Load: &Role{Name: Load, Addr: h.Self},
		App:  &Role{Name: App, Addr: h.Addr, Host: h.String()},
		DB:   &Role{Name: DB, Addr: h.Self},
	}
}

// Close removes what Start made: every process still in a namespace is killed first.
// On SSH it ends what runs on the app's host and the connection. Safe to call twice; a
// loopback topology has nothing to remove.
func (t *Topology) Close() error {
	if t != nil && t.Remote != nil {
		err := t.Remote.Close()
		t.Remote = nil
		return err
	}
	if t == nil || t.subnet == 0 {
		return nil
	}
	err := removeNetns(t.ip, t.owner, t.subnet)
	t.subnet = 0
	return err
}

// lookSbin finds name on PATH or in the sbin directories a non-login PATH may lack.
func lookSbin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/local/sbin", "/usr/sbin", "/sbin"} {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("no %s found", name)
}
