package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"dbbench/runners/histogram"
	"dbbench/runners/measure/loadgen"
	"dbbench/runners/measure/procstat"
	"dbbench/runners/measure/servers"
	"dbbench/runners/measure/target"
	"dbbench/runners/results"
	"dbbench/runners/saturation"
	"dbbench/runners/units"
)

// slice measures one slice of rv on its running target t: a lead-in that is not
// measured (the target was idle while others were measured), then the measured window
// with every counter read around it. It appends the repetition to rv and returns it;
// nil when rv turned out invalid (the reason is in rv), an error when the run must end.
func (r *runner) slice(ctx context.Context, t *target.Target, rv *results.Variant, load Load) (*results.Repetition, error) {
	n := len(rv.Reps) + 1
	if err := r.openLedger(ctx, []*results.Variant{rv}); err != nil {
		if derr := r.databaseAlive(ctx); derr != nil {
			return nil, derr
		}
		fmt.Fprintf(r.o.Log, "note: %v: the writes of %s slice %d are not counted\n", err, rv.Key, n)
	}
	defer r.closeLedger()
	if r.o.LeadIn > 0 {
		lead := r.loadConfig(t, rv, Load{Connections: load.Connections, Rate: load.Rate, Duration: r.o.LeadIn}, r.o.Seed^0x6c656164+uint64(n)) // "lead"
		res, err := loadgen.Run(ctx, lead)
		r.keep(rv, res)
		if err != nil {
			return nil, r.failRep(ctx, rv, n, "lead-in", err)
		}
	}
	pids := t.PIDs()
	t.ResetPeakRSS(pids)
	before, err := r.counters(ctx, t, pids, r.on(rv))
	if err != nil {
		return nil, r.failRep(ctx, rv, n, "read counters", err)
	}
	cfg := r.loadConfig(t, rv, load, r.o.Seed+uint64(n)*0x9e3779b9)
	var visits0 int64
	if r.isUpdate(rv) {
		if visits0, err = r.visitsSum(ctx, r.on(rv)); err != nil {
			return nil, r.failRep(ctx, rv, n, "lost-update check", err)
		}
	}
	started := time.Now().UTC()
	threads := sample(ctx, threadsRunning(r.on(rv)))
	inUse := sample(ctx, poolInUse(t.AdminURL))
	busy0, busyErr0 := procstat.SystemBusy()
	res, err := loadgen.Run(ctx, cfg)
	busy1, busyErr1 := procstat.SystemBusy()
	r.keep(rv, res)
	threadsMean, threadsMax, _ := threads()
	inUseMean, inUseMax, inUseN := inUse()
	if ctx.Err() != nil {
		return nil, ctx.Err() // a slice cut short is not a slice: it is not recorded
	}
	if err != nil {
		return nil, r.failRep(ctx, rv, n, "load", err)
	}
	after, afterErr := r.counters(ctx, t, t.PIDs(), r.on(rv))
	if err := t.Alive(); err != nil && afterErr == nil {
		afterErr = err
	}
	rss, _ := t.PeakRSS(t.PIDs())
	rep, err := newRepetition(n, started, res)
	if err != nil {
		return nil, err
	}
	rep.AppRSS, rep.ThreadsRunningMean, rep.ThreadsRunningMax = rss, threadsMean, threadsMax
	if inUseN > 0 {
		rep.PoolInUseMean, rep.PoolInUseMax = inUseMean, inUseMax
	}
	if afterErr == nil {
		after.sub(before, res.Requests, rep)
	}
	if busyErr0 == nil && busyErr1 == nil {
		rep.OutsideCPU = outside(busy1-busy0, rep, res.Requests, res.Elapsed)
	}
	if !r.record(rv, t, rep, res, afterErr, fmt.Sprintf("slice %d", n)) {
		return nil, r.databaseAlive(ctx)
	}
	if r.isUpdate(rv) {
		visits1, err := r.visitsSum(ctx, r.on(rv))
		if err != nil {
			return nil, r.failRep(ctx, rv, n, "lost-update check", err)
		}
		if !r.judgeVisits(rv, rep, res, visits1-visits0, fmt.Sprintf("slice %d", n)) {
			return nil, nil
		}
	}
	return rep, nil
}

// judgeSaturation flags a variant whose slices' latency was queueing rather than
// service time (package saturation), replacing its earlier verdict.
func (r *runner) judgeSaturation(rv *results.Variant) {
	v := saturation.JudgeAll(rv.SaturationSummaries())
	had := slices.ContainsFunc(rv.Flags, saturation.IsFlag)
	rv.Flags = slices.DeleteFunc(rv.Flags, saturation.IsFlag)
	if v.Marked() {
		rv.Flags = append(rv.Flags, v.Flag())
		if !had {
			fmt.Fprintf(r.o.Log, "flagged: %s: %s\n", rv.Key, v.Flag())
		}
	}
}

// loadConfig is the generator's configuration for load on rv, ids from seed; the
// load's zero fields take the run's settings.
func (r *runner) loadConfig(t *target.Target, rv *results.Variant, load Load, seed uint64) loadgen.Config {
	if load.Connections == 0 {
		load.Connections = r.o.Connections
	}
	if load.Rate == 0 {
		load.Rate = r.o.Rate
	}
	if load.Duration == 0 {
		load.Duration = r.o.Duration
	}
	op, limit := opOf(r.specs[rv.Key].Op)
	cfg := loadgen.Config{
		Target: t.URL, Op: op, Limit: limit, Rows: uint32(r.rows()), Connections: load.Connections, Rate: load.Rate,
		DisableKeepAlives: !r.o.KeepAlive, Check: Checker(r.rows(), r.o.DB.OrdersPerUser), Duration: load.Duration, Seed: seed,
		Poisson:   r.o.Poisson && load.Rate > 0,
		KeepAcked: op == loadgen.Insert,
	}
	if o := r.specs[rv.Key].Op; o != nil {
		cfg.Orders, cfg.Fetch = o.Orders, o.Fetch
	}
	if !rv.DB {
		cfg.Path, cfg.Check = "/hello", checkHello
	}
	return cfg
}

// outside is how many cores processes other than the measured ones (the target, the
// database, dbbench itself) kept busy during a slice: the machine's busy time less
// theirs, over the slice's wall time. A neighbour that takes CPU while the slices run,
// but not while the yardstick is read, makes the code look slower (a test suite beside
// an identical run gave 31 absolute figures "regressed"); compare reads this to tell.
// Nil when a role's CPU was not read (a server on another host).
func outside(busy time.Duration, rep *results.Repetition, requests int64, wall time.Duration) *float64 {
	if requests == 0 || wall <= 0 || rep.AppCPU < 0 || rep.DBCPU < 0 || rep.GenCPU < 0 {
		return nil
	}
	ours := (rep.AppCPU + rep.DBCPU + rep.GenCPU + rep.Counts[units.PoolerCPU]) * float64(requests)
	cores := max(0, busy.Seconds()-ours) / wall.Seconds()
	return &cores
}

// newRepetition records what the load generator measured in one slice.
func newRepetition(n int, started time.Time, res *loadgen.Result) (*results.Repetition, error) {
	lat := histogram.Summarize(res.Latency)
	rep := &results.Repetition{
		Rep: n, Started: started, Seconds: res.Elapsed.Seconds(),
		Requests: res.Requests, OK: res.OK, QPS: res.QPS,
		P50: lat.P50.Seconds(), P90: lat.P90.Seconds(), P99: lat.P99.Seconds(),
		P999: lat.P999.Seconds(), Max: lat.Max.Seconds(),
		AppCPU: -1, DBCPU: -1, GenCPU: res.CPUPerRequest(),
	}
	for class, n := range res.Errors {
		if n > 0 {
			if rep.Errors == nil {
				rep.Errors = map[string]int64{}
			}
			rep.Errors[class] = n
		}
	}
	var err error
	if rep.Latency, err = histogram.Encode(res.Latency); err != nil {
		return nil, err
	}
	if rep.Service, err = histogram.Encode(res.Service); err != nil {
		return nil, err
	}
	return rep, nil
}

// invalidReason says why a slice makes its variant invalid; "" when it does not.
func (r *runner) invalidReason(res *loadgen.Result, countersErr error) string {
	errs := res.ErrorCount()
	switch {
	case res.Requests == 0:
		return "no request finished"
	case float64(errs)/float64(res.Requests) > r.o.MaxErrorRate:
		return fmt.Sprintf("%d of %d requests failed (%s), more than %.2g%%",
			errs, res.Requests, res.ErrorSummary(), 100*r.o.MaxErrorRate)
	case countersErr != nil:
		return fmt.Sprintf("target died during the slice: %v", countersErr)
	}
	return ""
}

// sample reads a gauge every 100 ms until the returned function is called, which
// gives the mean and the maximum of the readings; n is 0 when none could be read.
func sample(ctx context.Context, read func(ctx context.Context) (int64, bool)) func() (mean float64, max int64, n int) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	var sum, count, top int64
	go func() {
		defer close(done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if v, ok := read(ctx); ok {
				sum, count, top = sum+v, count+1, max(top, v)
			}
		}
	}()
	return func() (float64, int64, int) {
		cancel()
		<-done
		if count == 0 {
			return 0, 0, 0
		}
		return float64(sum) / float64(count), top, int(count)
	}
}

// threadsRunning reads how many statements the database was really running at once,
// whatever the pools allowed (servers.Server.Running: MySQL's Threads_running,
// PostgreSQL's active backends), the sampling connection's own left out.
func threadsRunning(d *database) func(ctx context.Context) (int64, bool) {
	srv := servers.For(d.db.Protocol())
	return func(ctx context.Context) (int64, bool) { return srv.Running(ctx, d.admin) }
}

// poolInUse reads a Go target's connections in use (DBStats.InUse).
func poolInUse(adminURL string) func(ctx context.Context) (int64, bool) {
	return func(ctx context.Context) (int64, bool) {
		s, err := target.ReadPool(ctx, adminURL)
		if err != nil {
			return 0, false
		}
		return s.InUse, true
	}
}

// failRep marks the variant invalid for a failed slice, as failVariant says.
func (r *runner) failRep(ctx context.Context, rv *results.Variant, rep int, what string, err error) error {
	return r.failVariant(ctx, rv, fmt.Sprintf("slice %d: %s: %v", rep, what, err))
}

// failVariant marks the variant invalid for reason unless the run itself was
// interrupted or the database is gone, which end the run and are returned.
func (r *runner) failVariant(ctx context.Context, rv *results.Variant, reason string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := r.databaseAlive(ctx); err != nil {
		return err
	}
	r.invalidate(rv, reason)
	return nil
}

// writeHistogram merges the variant's repetitions into one .hgrm file.
func (r *runner) writeHistogram(rv *results.Variant) error {
	merged, err := rv.Latency()
	if err != nil {
		return err
	}
	rel := filepath.Join("histograms", strings.NewReplacer("/", "_", "=", "-").Replace(rv.Key)+".hgrm")
	path := filepath.Join(r.o.Out, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b strings.Builder
	if err := histogram.WriteHGRM(&b, merged); err != nil {
		return err
	}
	if err := results.WriteFile(path, []byte(b.String())); err != nil {
		return err
	}
	rv.Histogram = rel
	return nil
}

func checkHello(_ loadgen.Request, body []byte) error {
	if string(body) != "Hello, World!" {
		return fmt.Errorf("body %q, want \"Hello, World!\"", body)
	}
	return nil
}

// record adds rep, measured as what on target t, to v with its saturation summary, and
// judges v: false when the repetition made v invalid, the reason naming t's last
// database error where it printed one.
func (r *runner) record(v *results.Variant, t *target.Target, rep *results.Repetition, res *loadgen.Result, afterErr error, what string) bool {
	sat := saturationSummary(res)
	sat.Causes.PoolCounted, sat.Causes.PoolWaitSeconds = rep.PoolCounted, rep.PoolWaitSeconds
	rep.Saturation = &sat
	v.DropUncounted(rep) // counts blind on this role or server (results.Variant.Counted)
	v.Reps = append(v.Reps, rep)
	if why := r.invalidReason(res, afterErr); why != "" {
		r.invalidate(v, fmt.Sprintf("%s: %s", what, why)+targetSaid(t))
		return false
	}
	r.judgeSaturation(v)
	return true
}
