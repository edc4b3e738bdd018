package soak

import "dbbench/runners/measure/servers"

// Connections and statements that no target holds.
//
// The server's global counts (Threads_connected, Prepared_stmt_count) hold every
// target's connections and statements, which rise and fall with the requests in
// flight: an outside client's slow leak is lost in that noise over a few minutes (the
// repository's README.md, "Calibrated on both sides"). What no target explains has none
// of it. Each round lists the server's connections twice, at its start and at its end;
// a connection in both lived across the round (a per-request one, which lives for one
// request, seldom does). Of those, the ones whose client port is one of a target's
// sockets are the target's; the runner's own is left out by the query. The rest are
// outside: another client, a cron job, a leak in something the soak does not run. What
// the server tells of each (its statements, its backend's memory) is the server's
// (runners/measure/servers).

// outside counts the connections listed both before and after a round whose client
// port is no target's, with their prepared statements, and the most private memory one
// of their server processes holds (as read before): a connection that keeps preparing
// grows its own backend, where new idle connections add a backend each (counted).
func outside(before, after map[int64]servers.Client, targets map[int]bool) (conns, stmts int, memory int64) {
	for id, c := range before {
		if _, still := after[id]; !still || (c.Port != 0 && targets[c.Port]) {
			continue
		}
		conns++
		stmts += c.Stmts
		memory = max(memory, c.Memory)
	}
	return conns, stmts, memory
}

// seesPorts says whether the server's list shows the targets' client ports: with a
// proxy or NAT between them (docker-proxy, ProxySQL) it shows the proxy's, and every
// target connection would read as outside. No target connection at all tells nothing.
func seesPorts(conns map[int64]servers.Client, targets map[int]bool) bool {
	if len(targets) == 0 {
		return true
	}
	for _, c := range conns {
		if targets[c.Port] {
			return true
		}
	}
	return false
}
