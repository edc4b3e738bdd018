package poolsize

import (
	"dbbench/runners/units"
	"fmt"
	"strings"
)

// Assumptions is the clause every recommendation states: what it was sized for.
func (n Need) Assumptions() string {
	s := fmt.Sprintf("at %.0f req/s per app instance, p99 ≤ %v, %v to the database, %d instances, max_connections %d",
		n.Rate, n.P99, rttText(n), n.Instances, n.MaxConnections)
	if n.AppCores > 0 {
		s += fmt.Sprintf(", app hosts of %d cores and a database host of %d", n.AppCores, n.DBCores)
	}
	return s
}

func rttText(n Need) string {
	if n.RTT == 0 {
		return "0 ms"
	}
	return n.RTT.String()
}

// Sentence is the recommendation for one family, in the form scripts read ("the
// smallest pool that holds is **N**"), with how it was reached and the settings that
// apply it.
func (a Advice) Sentence(family string) string {
	if a.Pool == 0 {
		return fmt.Sprintf("%s: %s, no pool holds: %s.", family, a.Need.Assumptions(), a.Why)
	}
	h := a.Hold
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s, the smallest pool that holds is **%d**: a request holds its %s %s [%s, %s] (%s round %s), "+
		"so %d carry %.0f req/s [%.0f, %.0f] while a request waits at most the %s left of the target.",
		family, a.Need.Assumptions(), a.Pool, h.Resource, units.Seconds(h.Seconds), units.Seconds(h.Lo), units.Seconds(h.Hi),
		trim(h.RoundTrips), tripWord(h.RoundTrips), a.Pool, a.Capacity, a.CapLo, a.CapHi, units.Seconds(a.Budget))
	if a.Model < 2 {
		b.WriteString(" The model alone needs 1; 2 are advised: with one, a single slow query holds up every request.")
	}
	if a.Recommended > a.Pool {
		fmt.Fprintf(&b, " **%d** keep the pool within %.0f%% busy at the rate, room for a surge of %.2g×: recommended.", a.Recommended, 100*Headroom, 1/Headroom)
	}
	if a.AppUse > 0 {
		fmt.Fprintf(&b, " At the rate the app host's CPU is %.0f%% busy and the database's %.0f%%", 100*a.AppUse, 100*a.DBUse)
		if max(a.AppUse, a.DBUse) > Headroom {
			fmt.Fprintf(&b, ", over %.0f%%: more cores or instances before a larger pool", 100*Headroom)
		}
		b.WriteString(".")
	} else {
		b.WriteString(" The CPU is not modelled (the run measured none, or no host's cores were given).")
	}
	if a.Upper > 0 {
		fmt.Fprintf(&b, " Too large costs too: more than %d per instance (max_connections ÷ instances) and the server refuses connections; each idle connection holds a server thread and its buffers.", a.Upper)
	}
	if a.MemoryBound > 0 {
		fmt.Fprintf(&b, " Each %s keeps %s of its own between requests (private memory, read after the run's slices; a request's peak adds to it): an app host of %s holds at most %d, before what they share, the web server and the OS.",
			a.Hold.Resource, units.BinaryBytes(a.Hold.Memory), units.BinaryBytes(a.Need.AppMemory), a.MemoryBound)
	}
	b.WriteString(" " + a.Settings())
	return b.String()
}

// Settings says how to apply the pool, and what it asks of the server.
func (a Advice) Settings() string {
	total, fits := a.Total()
	within := fmt.Sprintf("within max_connections %d", a.Need.MaxConnections)
	if !fits {
		within = fmt.Sprintf("over max_connections %d: raise it, or spread fewer connections over the instances", a.Need.MaxConnections)
	}
	all := fmt.Sprintf("%d instances × %d = %d connections, %s.", a.Need.Instances, a.Pool, total, within)
	switch a.Hold.Resource {
	case "connection":
		return fmt.Sprintf("In Go: db.SetMaxOpenConns(%d), db.SetMaxIdleConns(%d) (fewer idle than open connections are closed and reopened under load), "+
			"db.SetConnMaxLifetime(3 * time.Minute) (under the server's wait_timeout and any proxy's idle timeout). %s", a.Pool, a.Pool, all)
	case "php-fpm child":
		return fmt.Sprintf("In php-fpm: pm = static, pm.max_children = %d; with persistent PDO each child keeps one connection. %s", a.Pool, all)
	default:
		return fmt.Sprintf("Resident workers: %d per instance, each keeping one connection. %s", a.Pool, all)
	}
}

// HowHeld says how a Go request's hold of its connection was timed, as a clause that
// follows "holds its connection": in the target, or in runs before that, at the
// counting proxy.
func (h Hold) HowHeld() string {
	if h.InTarget {
		return "from the pool's handing it over to its return (timed in the target by go/held: the app's work in between, the database's and every round trip)"
	}
	return "while its commands wait for the database (timed at the counting proxy: the database's work and every round trip)"
}

// tripWord is "trip" for exactly one round trip, else "trips" (2, 1.5).
func tripWord(n float64) string {
	if n == 1 {
		return "trip"
	}
	return "trips"
}

func trim(x float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", x), "0"), ".")
}
