package main

import (
	"fmt"

	"dbbench/runners/provider"
	"dbbench/runners/topology"
)

// topologyFlag registers --topology, which run and the sweeps share.
func topologyFlag(fs *flagSet) *string {
	return fs.String("topology", topology.Loopback, oneOf(topology.Kinds...),
		"where the roles run: loopback (all on this host's 127.0.0.1) or netns (the database, the targets and the load generator each with an address and a network namespace of its own, behind a bridge: real TCP stacks between real interfaces; needs root and ip)")
}

// checkTopology refuses, by its flag, a topology this host cannot build or the
// database cannot join: before anything starts.
func checkTopology(fs *flagSet, kind string, db provider.Options) error {
	if err := topology.Check(kind); err != nil {
		return fs.named("topology", err)
	}
	if kind == topology.Netns && db.KindName() != "embedded" {
		return fs.named("topology", fmt.Errorf("netns runs the database in a namespace of its own: it needs --provider embedded, not %s", db.KindName()))
	}
	return nil
}
