package poolsize

import "dbbench/runners/results"

// ServerConnection is what a transaction pooler's pool is made of: the server's
// connections, which it lends each transaction in turn.
const ServerConnection Resource = "server connection"

// ThroughPooler sizes a transaction pooler's pool (PgBouncer's default_pool_size) for
// every app instance's rate together, from v measured through the pooler: a request's
// server connection is held no longer than its commands waited for their answers at
// the counting proxy in front of the pooler, one at a time (ZeroLoad.DBWait), which
// also holds the hop to the pooler: the size errs large. The app pools are the
// pooler's clients and no longer count against max_connections; this pool does. The
// hosts' CPU is not modelled here (Size's answer for the app pools models it). ok is
// false without a measurement.
func ThroughPooler(v *results.Variant, n Need) (Advice, bool) {
	rt := v.Roundtrips
	if rt == nil || rt.ZeroLoad == nil || rt.ZeroLoad.DBWait <= 0 {
		return Advice{}, false
	}
	z := rt.ZeroLoad
	h := Hold{Seconds: z.DBWait, Lo: z.DBWaitLo, Hi: z.DBWaitHi, P99: z.LatencyP99, Resource: ServerConnection}
	fleet := n
	fleet.Rate, fleet.Instances, fleet.Current = n.Rate*float64(max(1, n.Instances)), 1, 0
	return SizeOn(h, fleet, Hosts{}), true
}
