package poolsize

import (
	"embed"
	"fmt"
	"strings"

	"dbbench/runners/internal/words"
	"dbbench/runners/units"
)

//go:embed words.tmpl
var wordsFS embed.FS

// say fills one of the advice's sentences (words.tmpl).
var say = words.Load(wordsFS, "words.tmpl").Say

// Assumptions is the clause every recommendation states: what it was sized for.
func (n Need) Assumptions() string {
	return say("assumptions", map[string]any{"Rate": n.Rate, "P99": n.P99, "RTT": rttText(n), "Instances": n.Instances,
		"MaxConnections": n.MaxConnections, "AppCores": n.AppCores, "DBCores": n.DBCores})
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
		return say("no-pool", map[string]any{"Family": family, "Assumptions": a.Need.Assumptions(), "Why": a.Why})
	}
	h := a.Hold
	return say("advice", map[string]any{
		"Family": family, "Assumptions": a.Need.Assumptions(), "Pool": a.Pool, "Resource": h.Resource,
		"Hold": units.Seconds(h.Seconds), "Lo": units.Seconds(h.Lo), "Hi": units.Seconds(h.Hi),
		"RoundTrips": trim(h.RoundTrips), "Trips": h.RoundTrips,
		"Capacity": a.Capacity, "CapLo": a.CapLo, "CapHi": a.CapHi, "Budget": units.Seconds(a.Budget),
		"Model": a.Model, "Recommended": a.Recommended, "HeadroomPct": 100 * Headroom, "Surge": 1 / Headroom,
		"AppPct": 100 * a.AppUse, "DBPct": 100 * a.DBUse, "CPUOver": max(a.AppUse, a.DBUse) > Headroom,
		"Upper": a.Upper, "MemoryBound": a.MemoryBound,
		"Memory": units.BinaryBytes(h.Memory), "AppMemory": units.BinaryBytes(a.Need.AppMemory),
		"Settings": a.Settings(),
	})
}

// Settings says how to apply the pool, and what it asks of the server.
func (a Advice) Settings() string {
	total, fits := a.Total()
	return say("settings", map[string]any{"Resource": a.Hold.Resource, "Pool": a.Pool, "Instances": a.Need.Instances,
		"Total": total, "Fits": fits, "MaxConnections": a.Need.MaxConnections})
}

// HowTimed says how the holds of a run or a sweep were timed, every variant of one
// alike: conn is HowHeld of its first Go connection (of one timed at the counting proxy
// when it has none), child HowHeld of its first php-fpm child when php-fpm timed it, ""
// when the child was held for the request's latency or there is none.
func HowTimed(hs []Hold) (conn, child string) {
	c, ok := firstOf(hs, Connection)
	if !ok {
		c = Hold{Resource: Connection}
	}
	if h, ok := firstOf(hs, FPMChild); ok && h.InTarget {
		child = h.HowHeld()
	}
	return c.HowHeld(), child
}

func firstOf(hs []Hold, r Resource) (Hold, bool) {
	for _, h := range hs {
		if h.Resource == r {
			return h, true
		}
	}
	return Hold{}, false
}

// HowHeld says how a request's hold was timed, as a clause that follows "holds its
// connection" (Go) or "holds its php-fpm child or worker" (PHP): in the target, or,
// where the run did not time it there, at the counting proxy (Go) or as the request's
// latency (PHP).
func (h Hold) HowHeld() string {
	return say("held", map[string]bool{"InTarget": h.InTarget, "Connection": h.Resource == Connection})
}

func trim(x float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", x), "0"), ".")
}
