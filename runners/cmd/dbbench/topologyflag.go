package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"dbbench/dsn"
	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/provider"
	"dbbench/runners/measure/remote"
	"dbbench/runners/measure/topology"
	"dbbench/runners/results"
)

// topologyFlag registers --topology, which run and the sweeps share; the kind it
// returns reads the flag once parsed.
func topologyFlag(fs *flagSet) func() results.TopologyKind {
	kinds := make([]string, len(topology.Kinds))
	for i, k := range topology.Kinds {
		kinds[i] = string(k)
	}
	s := fs.String("topology", string(results.Loopback), oneOf(kinds...), say("flag-topology", nil))
	return func() results.TopologyKind { return results.TopologyKind(*s) }
}

// checkTopology refuses, by its flag, a topology this host cannot build or the
// database cannot join: before anything starts.
func checkTopology(fs *flagSet, kind results.TopologyKind, db provider.Options) error {
	if err := topology.Check(kind); err != nil {
		return fs.named("topology", err)
	}
	if kind == results.Netns && db.KindName() != "embedded" {
		return fs.named("topology", fmt.Errorf("netns runs the database in a namespace of its own: it needs --provider embedded, not %s", db.KindName()))
	}
	return nil
}

// appHostFlags are --app-host and how to reach it.
type appHostFlags struct{ url, key, knownHosts *string }

func (f *appHostFlags) register(fs *flagSet) {
	f.url = fs.String("app-host", "", anything, say("flag-app-host", nil))
	f.key = fs.String("ssh-key", "", anything, "with --app-host: the private key (default: ssh's own, ~/.ssh/id_* or the agent)")
	f.knownHosts = fs.String("known-hosts", "", anything, "with --app-host: the known_hosts file that holds the host's key (default: ssh's own, ~/.ssh/known_hosts)")
}

// check refuses by name what cannot work: a malformed URL, a key or known_hosts file
// that is not there, SSH options without a host, another topology besides, or a
// variant that is not Go.
func (f *appHostFlags) check(fs *flagSet, topo results.TopologyKind, vs []matrix.Variant) (remote.Options, error) {
	o := remote.Options{Key: *f.key, KnownHosts: *f.knownHosts}
	if *f.url == "" {
		for name, v := range map[string]string{"ssh-key": o.Key, "known-hosts": o.KnownHosts} {
			if v != "" {
				return o, fs.named(name, errors.New("needs --app-host"))
			}
		}
		return o, nil
	}
	if _, _, _, err := remote.ParseURL(*f.url); err != nil {
		return o, fs.named("app-host", err)
	}
	if topo != results.Loopback {
		return o, fs.named("app-host", fmt.Errorf("places the app on another machine: give it or --topology %s, not both", topo))
	}
	for name, path := range map[string]string{"ssh-key": o.Key, "known-hosts": o.KnownHosts} {
		if _, err := os.Stat(path); path != "" && err != nil {
			return o, fs.named(name, err)
		}
	}
	for _, v := range vs {
		if v.Lang != "go" {
			return o, fs.named("app-host", fmt.Errorf("runs Go targets only, and %s is %s: narrow --variants to lang=go", v.Key(), v.Lang))
		}
	}
	return o, nil
}

// checkAppHostDB refuses a database the app host cannot reach: one on this host's
// loopback (a container's published port, a dsn at 127.0.0.1), unless --rtt puts a
// delay proxy, which listens where the host reaches it, in between.
func checkAppHostDB(fs *flagSet, db provider.Options, rtt time.Duration) error {
	switch db.KindName() {
	case "testcontainers":
		return fs.named("app-host", errors.New("the container's port is on this host's loopback, which the app host cannot reach: use the embedded provider or --provider dsn"))
	case "dsn":
		at, err := dsn.TCPOf(db.DSN) // a MySQL DSN or a PostgreSQL URL
		if err != nil || rtt > 0 {
			return nil // the provider says what is wrong with it
		}
		host := at.Host
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			return fs.named("app-host", fmt.Errorf("the database's DSN names %s, this host's loopback, which the app host cannot reach: give an address it reaches", host))
		}
	}
	return nil
}

// hostRefused makes the app host's refusal (unknown host key, key refused) a usage
// error: the user fixes it, as a wrong flag.
func hostRefused(err error) error {
	if errors.Is(err, remote.ErrHostKey) || errors.Is(err, remote.ErrAuth) {
		return fmt.Errorf("%w: run: --app-host: %v", errUsage, err)
	}
	return nil
}
