package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"dbbench/runners/results"
	"dbbench/runners/units"
)

// The tables of every variant on its own: figures with their intervals, counts, round
// trips, and the environment the run measured in.

// notes numbers the distinct warnings of a table, so a cell carries a short mark beside
// its number and the warning itself is written once under the table.
type notes struct{ list []string }

func (n *notes) mark(ws []string) string {
	if len(ws) == 0 {
		return ""
	}
	var marks []string
	for _, w := range ws {
		i := slices.Index(n.list, w)
		if i < 0 {
			n.list = append(n.list, w)
			i = len(n.list) - 1
		}
		marks = append(marks, fmt.Sprint(i+1))
	}
	return " (!" + strings.Join(marks, ",") + ")"
}

func (n *notes) lines() []string {
	var out []string
	for i, w := range n.list {
		out = append(out, fmt.Sprintf("(!%d) %s", i+1, w))
	}
	return out
}

// column is one figure of a variants table.
type column struct {
	head   string
	unit   string
	factor float64 // display unit per bench.txt unit
	digits int
}

// timeColumns depend on the machine's speed: medians with benchstat's interval.
var timeColumns = []column{
	{"QPS", units.QPS, 1, 0},
	{"p50 ms", units.P50, 1e3, 2},
	{"p99 ms", units.P99, 1e3, 2},
	{"p99.9 ms", units.P999, 1e3, 2},
	{"app CPU µs/req", units.AppCPU, 1e6, 1},
	{"db CPU µs/req", units.DBCPU, 1e6, 1},
	{"pooler CPU µs/req", units.PoolerCPU, 1e6, 1},
	{"gen CPU µs/req", units.GenCPU, 1e6, 1},
	{"errors/req", units.Errors, 1, 4},
}

// countColumns do not depend on the machine's speed: medians, no interval.
var countColumns = []column{
	{"allocs/req", units.Allocs, 1, 0},
	{"B alloc/req", units.AllocBytes, 1, 0},
	{"GC cycles/req", units.GCCycles, 1, 4},
	{"PHP req peak kB", units.ReqPeakAlloc, 1e-3, 0},
	{"app read+write/req", units.Syscalls("app"), 1, 1},
	{"gen read+write/req", units.Syscalls("gen"), 1, 1},
	{"app vcsw/req", units.Switches("app"), 1, 2},
	{"db vcsw/req", units.Switches("db"), 1, 2},
	{"gen vcsw/req", units.Switches("gen"), 1, 2},
	{"B to db/req", units.ToDB, 1, 0},
	{"B from db/req", units.FromDB, 1, 0},
	{"commands/req", units.Commands, 1, 2},
	{"round trips/req", units.Roundtrips, 1, 2},
	{"server dials/req", units.DBDials, 1, 3},
	{"server prepares/req", units.DBPrepares, 1, 3},
	{"pooler parses/req", units.PoolerParses, 1, 2},
	{"pooler binds/req", units.PoolerBinds, 1, 2},
}

// countsNote says what the counts table leaves out, and why (results.Variant.Counted).
const countsNote = "read+write: the target's and the load generator's read(2) and write(2) calls (/proc/PID/io), which is all of Go's socket I/O. " +
	"Not shown: a PHP target's and mariadbd's system calls, whose sockets use recv(2) and send(2), which that count does not see " +
	"(older runs' tables may show a figure for them: it meant nothing); and php-fpm's peak memory per request, " +
	"which its status page gives in whole 2 MiB chunks of PHP's allocator, the same for every layer. " +
	"PHP req peak: the most a resident worker's request had allocated at once, the worker's own objects included."

// keyHeadOf are the key columns of vs's tables: db too in a run of several servers,
// rev in a run of two revisions.
func keyHeadOf(vs []*results.Variant) []string {
	head := []string{"lang", "server", "layer", "stmt", "conn", "pool"}
	if hasOps(vs) {
		head = append(head, "op")
	}
	if severalDBs(vs) {
		head = append(head, "db")
	}
	if slices.ContainsFunc(vs, func(v *results.Variant) bool { return v.Rev != "" }) {
		head = append(head, "rev")
	}
	return head
}

// keyCells are v's keys; op too when ops is set (get's spelled out), and db when dbs
// is, so that every row of a table has the same columns.
func keyCells(v *results.Variant, ops, dbs bool) []cell {
	cells := []cell{textCell(v.Lang), textCell(v.Server), textCell(v.Layer), textCell(v.Stmt), textCell(v.Conn), numCell(float64(v.Pool), fmt.Sprint(v.Pool))}
	if ops {
		cells = append(cells, textCell(opName(v)))
	}
	if dbs {
		cells = append(cells, textCell(dbName(v)))
	}
	if v.Rev != "" {
		cells = append(cells, textCell(v.Rev))
	}
	return cells
}

// severalDBs says whether vs were measured on more than one server.
func severalDBs(vs []*results.Variant) bool {
	return slices.ContainsFunc(vs, func(v *results.Variant) bool { return v.Database != vs[0].Database })
}

// hasOps says whether any of vs measures an op other than get.
func hasOps(vs []*results.Variant) bool {
	return slices.ContainsFunc(vs, func(v *results.Variant) bool { return v.Op != "" })
}

// variantGrid is every valid variant in cols (those no variant has are left out),
// with the number of slices; interval marks the figures that get benchstat's ±.
func (d *data) variantGrid(id, caption string, cols []column, interval bool) grid {
	var kept []column
	for _, c := range cols {
		if slices.ContainsFunc(d.valid, func(v *results.Variant) bool { _, ok := d.summary(v, c.unit); return ok }) {
			kept = append(kept, c)
		}
	}
	keyHead := keyHeadOf(d.valid)
	g := grid{ID: id, Caption: caption, Head: keyHead, Sortable: true, Keys: len(keyHead)}
	for _, c := range kept {
		g.Head = append(g.Head, c.head)
	}
	if interval {
		g.Head = append(g.Head, "slices")
	}
	var n notes
	ops, dbs := hasOps(d.valid), severalDBs(d.valid)
	for _, v := range d.valid {
		row := keyCells(v, ops, dbs)
		for _, c := range kept {
			s, ok := d.summary(v, c.unit)
			switch {
			case !ok:
				row = append(row, numCell(math.NaN(), "–"))
			case interval:
				row = append(row, numCell(s.Center*c.factor, scaled(s, c.factor, c.digits, n.mark(s.Warnings))))
			default:
				row = append(row, numCell(s.Center*c.factor, fmt.Sprintf("%.*f", c.digits, s.Center*c.factor)))
			}
		}
		if interval {
			row = append(row, numCell(float64(len(v.Reps)), fmt.Sprint(len(v.Reps))))
		}
		g.Rows = append(g.Rows, row)
	}
	g.Notes = n.lines()
	return g
}

// tripGrid lists each captured variant's commands per request.
func (d *data) tripGrid() grid {
	g := grid{ID: "t-trips", Caption: countsOf(d.valid) + " per request, counted on the wire during the round-trip capture",
		Head: []string{"variant", "commands per request", "commands", "round trips", "B to db", "B from db", "rows examined", "server µs", "matches the matrix"}}
	for _, v := range d.valid {
		rt := v.Roundtrips
		if rt == nil {
			continue
		}
		cmds, trips := rt.Commands()
		match := "yes"
		if !rt.Match {
			match = "no: " + rt.Mismatch
		}
		examined, server := "–", "–"
		if rt.PerfSchema != nil {
			examined, server = units.Number(rt.RowsExamined), fmt.Sprintf("%.0f", rt.ServerTime*1e6)
		}
		g.Rows = append(g.Rows, []cell{textCell(label(v)), textCell(append([]string{commandList(rt)}, authLines(rt)...)...), textCell(units.Number(cmds)), textCell(units.Number(trips)),
			textCell(fmt.Sprintf("%.0f", rt.BytesToDB)), textCell(fmt.Sprintf("%.0f", rt.BytesFromDB)), textCell(examined), textCell(server), textCell(match)})
	}
	g.Notes = []string{say("trips-note", nil)}
	return g
}

// connectionsGrid is what a new connection cost on each server's authentication
// paths, with and without TLS (results.Run.Connections); nil when the run did not
// measure it.
func (d *data) connectionsGrid() *grid {
	if len(d.run.Connections) == 0 {
		return nil
	}
	g := &grid{ID: "t-connections", Caption: "What opening one connection cost on each authentication path (medians, 95% intervals)",
		Head: []string{"server", "path", "TLS", "round trips", "server CPU µs", "client wait µs", "connections"}}
	for _, server := range slices.Sorted(maps.Keys(d.run.Connections)) {
		for _, c := range d.run.Connections[server] {
			tls := "no"
			if c.TLS {
				tls = "yes"
			}
			g.Rows = append(g.Rows, []cell{textCell(server), textCell(c.Path), textCell(tls), textCell(units.Number(c.RoundTrips)),
				textCell(microsInterval(c.ServerCPU, c.ServerCPULo, c.ServerCPUHi)), textCell(microsInterval(c.Latency, c.LatencyLo, c.LatencyHi)),
				textCell(fmt.Sprint(c.Connections))})
		}
	}
	g.Notes = []string{say("connections-note", nil)}
	return g
}

// microsInterval shows seconds as µs with their interval: "412 [380, 444]".
func microsInterval(v, lo, hi float64) string {
	return units.WholeEstimate(v*1e6, lo*1e6, hi*1e6, "")
}

// authLines says how a capture's new connections authenticated, as the proxy saw
// them: "connects by caching_sha2_password, cached (1 round trip)".
func authLines(rt *results.Roundtrips) []string {
	if len(rt.Auth) == 0 {
		return nil
	}
	paths := slices.Sorted(maps.Keys(rt.Auth))
	trips := rt.HandshakeTrips
	var total float64
	for _, n := range rt.Auth {
		total += n
	}
	if total > 0 {
		trips /= total
	}
	return []string{fmt.Sprintf("connects by %s (%s each)", strings.Join(paths, "; "), units.Count(trips, "round trip"))}
}

// environmentGrid is the run's settings, then its environment, key by key.
func (d *data) environmentGrid() grid {
	s := d.run.Settings
	rows := [][2]string{
		{"preset", s.Preset}, {"provider", s.Provider}, {"rows", fmt.Sprint(s.Rows)},
		{"load", loadShape(s)}, {"keep-alive", fmt.Sprint(s.KeepAlive)},
		{"warm-up", s.Warmup}, {"duration", s.Duration}, {"slices of a variant in no comparison", fmt.Sprint(s.Reps)},
		{"seed", fmt.Sprint(s.Seed)}, {"round-trip requests", fmt.Sprint(s.RoundtripRequests)},
		{"max error rate", fmt.Sprint(s.MaxErrorRate)},
	}
	if p := s.Pairing; p != nil {
		rows = append(rows, [2]string{"pairing", pairingText(p)})
	}
	keys := make([]string, 0, len(d.run.Environment))
	for k := range d.run.Environment {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		rows = append(rows, [2]string{k, d.run.Environment[k]})
	}
	if ab := d.run.AB; ab != nil {
		rows = append(rows, [2]string{"threshold", fmt.Sprintf("±%g%%", 100*ab.Margin)})
		for _, side := range []struct {
			name string
			rev  *results.Rev
		}{{"A", ab.A}, {"B", ab.B}} {
			rows = append(rows, [2]string{side.name, side.rev.Commit + " " + side.rev.Name})
			for _, k := range envKeys(side.rev.Environment) {
				rows = append(rows, [2]string{side.name + ": " + k, side.rev.Environment[k]})
			}
		}
	}
	g := grid{ID: "t-environment", Caption: "Settings and environment", Head: []string{"setting", "value"}}
	for _, r := range rows {
		g.Rows = append(g.Rows, []cell{textCell(r[0]), textCell(r[1])})
	}
	return g
}

// pairingText says what a slice was under the run's design: turns in a block have no
// lead-in; a slice in one stretch has one (and so do the hello variants' in a block run).
func pairingText(p *results.Pairing) string {
	leadIn := term("lead-in", "lead-in")
	slice := fmt.Sprintf("each slice is %s after a %s %s", p.Slice, p.LeadIn, leadIn)
	if p.Design == "interleave" {
		slice = fmt.Sprintf("each slice is %s of a variant's %s (%s or more each) in a block, without a %s; "+
			"a variant in no comparison (hello) has slices of %s after a %s %s", p.Slice, term("turns", "turn"), p.Turn, leadIn, p.Slice, p.LeadIn, leadIn)
	}
	return fmt.Sprintf("design %s: %s; precision ±%.0f%%, %d–%d pairs, budget %s", p.Design, slice, 100*p.Precision, p.MinPairs, p.MaxPairs, p.Budget)
}

func loadShape(s results.Settings) string {
	if s.Rate > 0 && s.Poisson {
		return fmt.Sprintf("open loop at %.0f req/s, Poisson arrivals", s.Rate)
	}
	if s.Rate > 0 {
		return fmt.Sprintf("open loop at %.0f req/s", s.Rate)
	}
	return fmt.Sprintf("closed loop with %d connections", s.Connections)
}
