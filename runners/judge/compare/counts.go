package compare

import (
	"fmt"
	"math"
	"strings"

	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// exactness says, for each count per request that does not depend on the machine's
// speed, how far two runs' medians may differ before it is a change: by more than Rel
// (a fraction of the old value) and by more than Abs (in the unit) at once. The
// tolerances come from the spread of repeated slices of one run on the reference
// machine: a Go variant's allocs/op and B/op move from slice to slice, their medians
// far less, and so do its system calls (README.md, "Exactness of the counts", has the
// figures, as for every count below).
//
// Not judged, and why:
//   - gc-cycles/op: a fraction of a cycle per request that depends on the heap's size
//     and the moment the collector runs (slices differ widely);
//   - app-, db-, gen-vcsw/op: voluntary context switches depend on scheduling and load
//     (slices differ widely);
//   - gen-syscalls/op: the load generator is dbbench's, not the code under test;
//   - db-syscalls/op, a PHP target's app-syscalls/op and req-peak-B/op measure nothing
//     (results.Variant.Counted): results.Values leaves them out wherever stored;
//   - req-peak-alloc-B/op, a resident PHP worker's emalloc'ed peak in one request: the
//     slices of one run agree closely, but two runs of the same code (compare A/A on
//     fresh clones) differed well beyond that in Eloquent and the query builder: the
//     peak depends on what a long-lived worker's heap holds from its earlier requests,
//     which differs from one start to the next.
var exactness = []struct {
	Unit     string
	Rel, Abs float64
	Why      string
}{
	{units.Commands, 0, 1e-9, "exact: counted in the round-trip capture"},
	{units.Roundtrips, 0, 1e-9, "exact: counted in the round-trip capture"},
	{units.ToDB, 0.01, 1, "bytes on the wire during the capture: the same ids each run"},
	{units.FromDB, 0.01, 1, "bytes on the wire during the capture: the same ids each run"},
	{units.Allocs, 0.02, 1, "the Go runtime's count: background work moves it a little (README.md)"},
	{units.AllocBytes, 0.02, 64, "the Go runtime's count: background work moves it a little (README.md)"},
	{units.Syscalls("app"), 0.03, 0.2, "read- and write-family calls of a Go target: how replies batch moves them a little (README.md)"},
}

// countRows compares each deterministic count of each variant valid in both runs.
func countRows(old, new *results.Run, p pairing, res *Result) []Row {
	var rows []Row
	lacking := map[string]bool{} // units the new run has and the old one lacks
	for _, k := range p.keys {
		for _, x := range exactness {
			a, b := values(p.old[k], x.Unit), values(p.new[k], x.Unit)
			switch {
			case len(a) == 0 && len(b) > 0:
				lacking[x.Unit] = true
				continue
			case len(a) == 0 || len(b) == 0:
				continue
			}
			ma, mb := stats.Median(a), stats.Median(b)
			d := mb - ma
			row := Row{Kind: Count, Variant: k, Unit: x.Unit, Old: Num(ma), New: Num(mb), Verdict: Unchanged}
			if math.Abs(d) > x.Abs && math.Abs(d) > x.Rel*math.Abs(ma) {
				row.Verdict, row.Gate = Changed, true
			}
			row.AsIs = point(ma, mb)
			row.Judged = row.AsIs
			rows = append(rows, row)
		}
		rows = append(rows, commandRows(k, p.old[k], p.new[k])...)
	}
	if len(lacking) > 0 {
		var us []string
		for _, x := range exactness {
			if lacking[x.Unit] {
				us = append(us, x.Unit)
			}
		}
		res.Notes = append(res.Notes, fmt.Sprintf("old run has no %s (made before dbbench counted them): those counts are not compared", strings.Join(us, ", ")))
	}
	return rows
}

// commandRows names the commands per request by type that changed (Query/op,
// Prepare/op …): what a change of commands/op is made of, or a swap of one command for
// another that leaves the total alone. Types that did not change get no row. The wire
// counts are used when both runs have them, else the general log's.
func commandRows(key string, o, n *results.Variant) []Row {
	if o.Roundtrips == nil || n.Roundtrips == nil {
		return nil
	}
	a, b := o.Roundtrips.Wire, n.Roundtrips.Wire
	if a == nil || b == nil {
		a, b = o.Roundtrips.Log, n.Roundtrips.Log
	}
	var rows []Row
	for _, t := range keysOfBoth(a, b) {
		if math.Abs(a[t]-b[t]) <= 1e-9 {
			continue
		}
		c := point(a[t], b[t])
		rows = append(rows, Row{Kind: Count, Variant: key, Unit: t + "/op", Old: Num(a[t]), New: Num(b[t]),
			AsIs: c, Judged: c, Verdict: Changed, Gate: true})
	}
	return rows
}

// point is the change from old to new of an exact figure: an interval of one point.
func point(old, new float64) Change {
	r := Num(stats.Ratio(old, new) - 1)
	return Change{Lo: r, Mid: r, Hi: r}
}
