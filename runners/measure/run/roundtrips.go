package run

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"dbbench/runners/measure/servers"
	"dbbench/runners/measure/target"

	"dbbench/dsn/protocol"
	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/loadgen"
	"dbbench/runners/measure/roundtrip"
	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// Expectation is what the matrix says one request of a variant sends (matrix.yaml,
// roundtrips): Commands on the wire and in the general log, LogOnly in the log alone
// (work the server does on its own, said in Why).
type Expectation struct {
	Commands map[string]int
	LogOnly  map[string]int
	Why      []string
}

// expectation is v's, from the matrix.
func (r *runner) expectation(v matrix.Variant) Expectation {
	logOnly, why := r.o.Matrix.LogOnly(v)
	return Expectation{Commands: r.o.Matrix.Expected(v), LogOnly: logOnly, Why: why}
}

// counted is where a count reads its figures: the database's own counters (admin),
// the counting proxy, and the target's timer of its holds (nil where it has none).
type counted struct {
	admin  *sql.DB
	proxy  *roundtrip.Proxy
	holds  target.HoldTimer
	server servers.Server // what counts the server's commands
	// pooler reads the running totals of the pooler the targets reach the server
	// through (PgBouncer's SHOW STATS); nil without one.
	pooler func(ctx context.Context) (map[string]int64, error)
}

// countRoundtrips warms the target up on its op (so every pooled connection and every
// php-fpm worker's persistent connection is open, and every statement prepared), then
// sends n requests of the op one at a time under roundtrip.Capture and compares the
// counts with what the matrix expects.
func countRoundtrips(ctx context.Context, via counted, base string, op *matrix.Op, pool, rows, n int, seed uint64, want Expectation) (*results.Roundtrips, error) {
	c := newRequester(base, op, rows, seed, 0x726f756e64) // "round": a stream of its own
	defer c.close()
	// Warm-up at concurrency = pool: php-fpm hands requests to whichever worker is free,
	// and only concurrency reaches them all.
	// A statement working set until its caches are full (textsWarmth).
	warm := max(20*pool, 200)
	if op != nil {
		warm = max(warm, textsWarmth*pool*op.Texts)
	}
	var wg sync.WaitGroup
	errs := make(chan error, pool)
	qs := make(chan loadgen.Request, warm)
	for range warm {
		qs <- c.draw()
	}
	close(qs)
	for range pool {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range qs {
				if err := c.ok(ctx, q); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, fmt.Errorf("round-trip warm-up: %w", err)
	}

	// One request at a time: each one's latency, its commands' wait at the proxy, and
	// how long it held its connections (a Go target's) or its php-fpm child.
	latency, waited, held := make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	send := func(ctx context.Context) error {
		timed := via.holds != nil && via.holds.Start(ctx) == nil
		for range n {
			w0, t0 := via.proxy.Waited(), time.Now()
			if err := c.ok(ctx, c.draw()); err != nil {
				return err
			}
			latency = append(latency, time.Since(t0).Seconds())
			waited = append(waited, (via.proxy.Waited() - w0).Seconds())
			if timed { // one reading missed leaves the holds out (zeroLoad): stop reading
				d, err := via.holds.Next(ctx)
				if timed = err == nil; timed {
					held = append(held, d.Seconds())
				}
			}
		}
		return nil
	}
	var (
		res *roundtrip.Result
		err error
	)
	var poolerBefore map[string]int64
	if via.pooler != nil {
		if poolerBefore, err = via.pooler(ctx); err != nil {
			return nil, err
		}
	}
	if res, err = via.server.Capture(ctx, via.admin, n, send, via.proxy); err != nil {
		return nil, err
	}
	out := &results.Roundtrips{
		Requests: n,
		Log:      res.PerRequest(),
		Wire:     res.WirePerRequest(),
		Status:   map[string]float64{},
		Expected: want.Commands,
		LogOnly:  want.LogOnly,
		Why:      want.Why,
		Queries:  res.Queries,
		NotQuiet: res.NotQuiet,
		ZeroLoad: zeroLoad(latency, waited, held),
	}
	if res.Wire != nil {
		out.BytesToDB, out.BytesFromDB = float64(res.ToServer)/float64(n), float64(res.ToClient)/float64(n)
		out.WireFrom = res.From
		if out.Auth = res.AuthPerRequest(); out.Auth != nil {
			out.HandshakeTrips = float64(res.AuthTrips) / float64(n)
		}
	}
	for k, v := range res.Status {
		out.Status[k] = float64(v) / float64(n)
	}
	if poolerBefore != nil { // the capture waited for the wire to go quiet
		after, err := via.pooler(ctx)
		if err != nil {
			return nil, err
		}
		out.Pooler = map[string]float64{}
		for k, v := range after {
			out.Pooler[k] = float64(v-poolerBefore[k]) / float64(n)
		}
	}
	if res.Postgres {
		out.Protocol, out.Trips = protocol.Postgres, float64(res.Trips)/float64(n)
		out.Statements = res.StatementsPerRequest()
		out.PerfSchemaOff = res.StatementsOff
		out.Mismatch = Mismatch(res, want)
		out.Match = out.Mismatch == ""
		return out, nil
	}
	if res.Statements != nil {
		out.PerfSchema = res.StatementsPerRequest()
		out.RowsExamined = float64(res.RowsExamined) / float64(n)
		out.ServerTime = res.ServerTime.Seconds() / float64(n)
	}
	out.PerfSchemaOff = res.StatementsOff
	out.Mismatch = Mismatch(res, want)
	out.Match = out.Mismatch == ""
	return out, nil
}

// Mismatch compares a capture with the expected commands per request and describes
// every difference; "" when they agree. The wire count must equal the expectation in
// full; the general log must equal it and its LogOnly, without Ping, which the log
// never shows; performance_schema, where it counted, must equal it without Connect,
// which is no statement.
func Mismatch(res *roundtrip.Result, want Expectation) string {
	var diffs []string
	compare := func(what string, got map[string]int64, skip string, more map[string]int) {
		expected := map[string]int{}
		maps.Copy(expected, want.Commands)
		for k, n := range more {
			expected[k] += n
		}
		names := map[string]bool{}
		for k := range got {
			names[k] = true
		}
		for k := range expected {
			names[k] = true
		}
		for k := range names {
			if k == skip {
				continue
			}
			want := int64(expected[k]) * int64(res.Requests)
			if got[k] != want {
				diffs = append(diffs, fmt.Sprintf("%s %s: %.2f per request, want %d", what, k, float64(got[k])/float64(res.Requests), expected[k]))
			}
		}
	}
	if res.Postgres { // the wire alone counts messages; the server counts statements
		compare("wire", res.Wire, "", nil)
		sort.Strings(diffs)
		return strings.Join(diffs, "; ")
	}
	compare("log", res.Log, "Ping", want.LogOnly)
	if res.Statements != nil {
		compare("performance_schema", res.Statements, "Connect", nil)
	}
	if res.Wire != nil {
		compare("wire", res.Wire, "", nil)
	}
	sort.Strings(diffs)
	return strings.Join(diffs, "; ")
}

// countsText is commands per request as a person reads them: "Prepare 1, Query 2".
func countsText(counts map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, counts[k]))
	}
	return strings.Join(parts, ", ")
}

// zeroLoad summarizes the count's requests, one at a time. held counts only when every
// request gave one (a Go connection's or a php-fpm child's), so the mean is of the same
// requests.
func zeroLoad(latency, waited, held []float64) *results.ZeroLoad {
	l, w := stats.MeanOf(latency), stats.MeanOf(waited)
	if l.Void || l.Infinite {
		return nil
	}
	z := &results.ZeroLoad{Requests: l.N, Latency: l.Mean, LatencyLo: l.Lo, LatencyHi: l.Hi, LatencyP99: l.P99,
		DBWait: w.Mean, DBWaitLo: w.Lo, DBWaitHi: w.Hi}
	if h := stats.MeanOf(held); len(held) == len(latency) && !h.Void && !h.Infinite {
		z.Held, z.HeldLo, z.HeldHi = h.Mean, h.Lo, h.Hi
	}
	return z
}
