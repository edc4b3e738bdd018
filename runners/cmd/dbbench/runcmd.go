package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"

	"dbbench/runners/judge"
	"dbbench/runners/measure/delay"

	"dbbench/dsn/protocol"
	"dbbench/runners/define/matrix"
	"dbbench/runners/judge/compare"
	"dbbench/runners/judge/poolsize"
	"dbbench/runners/measure/run"
	"dbbench/runners/present/report"
	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/sweep"
	"dbbench/runners/units"
)

// precisionFlag is --precision of run and ab: 0 leaves it to the preset, else
// run.DefaultPrecision (run.Options.Defaults decides).
func precisionFlag(fs *flagSet) *float64 {
	return fs.Percent("precision", 0, percent, fmt.Sprintf("stop a comparison once its QPS and app CPU ratios are known within ± this many percent (95%% interval) (default: the preset's, else %g)", 100*run.DefaultPrecision))
}

// runConfig is `dbbench run`: the options of run.Run, as the flags give them (zero
// where the preset decides), and what to do with the results.
type runConfig struct {
	opts         run.Options
	saveBaseline string
	// poolCheck measures the fourth answer after the run (runners/sweep/check.go),
	// the need in opts.PoolNeed.
	poolCheck   bool
	checkProbes int
}

// parseRun is `dbbench run`: readRun, then its run.
var parseRun = actionOf(readRun)

// readRun is parseRun's reading of the command line, apart so that tests can see it.
func readRun(fs *flagSet, args []string) (runConfig, error) {
	var pf presetFlags
	pf.register(fs, "keep only variants whose key matches this regular expression")
	matrixFile := fs.String("matrix", "", anything, "variant matrix (default runners/matrix.yaml)")
	duration := fs.Duration("duration", 0, above0, "measured time of one slice (default: the preset's)")
	warmup := fs.Duration("warmup", 0, above0, "load for each target after it starts (default: the preset's)")
	leadIn := fs.Duration("lead-in", 0, above0, fmt.Sprintf("load before each slice, not measured (default %v)", run.DefaultLeadIn))
	reps := fs.Int("reps", 0, atLeast(1), "slices of a variant in no comparison, such as hello (default: the preset's)")
	budget := fs.Duration("budget", 0, above0, "time for all the paired slices (default: the preset's); no comparison stops below --min-pairs")
	precision := precisionFlag(fs)
	design := fs.String("design", "", oneOf("", run.Interleave, run.Walk, run.Alternate), say("flag-design", nil))
	turn := fs.Duration("turn", 0, above0, fmt.Sprintf("interleave: the shortest turn of a variant in a block (default %v; a slow variant's is %d× its median latency)", run.DefaultTurn, run.TurnsPerLatency))
	minPairs := fs.Int("min-pairs", 0, atLeast(stats.MinPairs), fmt.Sprintf("pairs per comparison before it may stop (default %d, the fewest with a 95%% interval)", stats.MinPairs))
	maxPairs := fs.Int("max-pairs", 0, atLeast(stats.MinPairs), fmt.Sprintf("pairs after which a comparison stops (default %d)", run.DefaultMaxPairs))
	profile := fs.Bool("profile", false, say("flag-run-profile", nil))
	profileTime := fs.Duration("profile-time", 0, atLeastTime(time.Second), fmt.Sprintf("length of the profiled slice (default %v)", run.DefaultProfileTime))
	conns := fs.Int("connections", 0, atLeast(1), "closed loop: client connections (default: the preset's)")
	rate := fs.Float("rate", 0, atLeast0, "open loop: requests per second in all (0, the default: closed loop)")
	arrivals := fs.String("arrivals", "even", oneOf("even", "poisson"), "open loop: how sends are spaced: even, or poisson (exponential gaps, concurrency rising and falling as production's does)")
	serverMaxConns := fs.Int("server-max-connections", 0, atLeast(0), "an embedded server's max_connections (0: what the run's pools need, with room); MariaDB and MySQL ship 151, PostgreSQL 100: to see a pool without a limit fail past it")
	keepalive := fs.Bool("keepalive", true, "reuse client connections (false: a new TCP connection per request)")
	seed := fs.Uint64("seed", 1, "seed of the id sequence")
	rtt := fs.Duration("rtt", 0, atLeast0, "round-trip time added between the targets and the database, half each way (a delay proxy): a network hop, as in production")
	topo := topologyFlag(fs)
	var ah appHostFlags
	ah.register(fs)
	var pn poolNeedFlags
	pn.register(fs, "pool-")
	pn.registerDBCores(fs)
	poolCheck := fs.Bool("pool-check", true, say("flag-pool-check", nil))
	checkProbes := fs.Int("pool-check-probes", sweep.DefaultCheckProbes, atLeast(1), "probes of each pool the check measures, interleaved")
	out := fs.String("out", "", anything, "run directory (default reports/runs/<stamp>)")
	verbose := fs.Bool("v", false, "progress lines name every variant being measured, not only the first")
	saveBaseline := fs.String("save-baseline", "", anything, "also save the run as a named baseline for 'dbbench compare --baseline NAME'")
	if err := fs.parse(args); err != nil {
		return runConfig{}, err
	}
	if err := fs.noArgs(); err != nil {
		return runConfig{}, err
	}
	if *arrivals == "poisson" && *rate == 0 {
		return runConfig{}, fmt.Errorf("%w: run: --arrivals poisson spaces an open loop's sends: give --rate", errUsage)
	}
	if *design == run.Interleave && *rate > 0 {
		return runConfig{}, fmt.Errorf("%w: run: --design interleave takes turns in closed loop; with --rate use --design walk or alternate", errUsage)
	}
	if *maxPairs > 0 && *maxPairs < *minPairs {
		return runConfig{}, fmt.Errorf("%w: run: --max-pairs %d is below --min-pairs %d", errUsage, *maxPairs, *minPairs)
	}
	sel, err := pf.load(fs, *matrixFile)
	if err != nil {
		return runConfig{}, err
	}
	var chosen []matrix.Variant
	for _, v := range sel.m.Expand(sel.preset) {
		if sel.pattern == nil || sel.m.Match(sel.pattern, v) {
			chosen = append(chosen, v)
		}
	}
	// Before the topology's own check, so that --topology netns with --app-host is
	// refused for what it is, root or not.
	ssh, err := ah.check(fs, topo(), chosen)
	if err != nil {
		return runConfig{}, err
	}
	if *ah.url != "" {
		if err := checkAppHostDB(fs, sel.db, *rtt); err != nil {
			return runConfig{}, err
		}
	}
	if err := checkTopology(fs, topo(), sel.db); err != nil {
		return runConfig{}, err
	}
	if n := *serverMaxConns; n > 0 {
		if sel.db.KindName() != "embedded" {
			return runConfig{}, fmt.Errorf("%w: run: --server-max-connections %d starts an embedded server so; --provider %s attaches to one whose limit is its own", errUsage, n, sel.db.KindName())
		}
		sel.db.MaxConnections = n
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join(sel.root, "reports", "runs", time.Now().UTC().Format("20060102-150405"))
	}
	return runConfig{saveBaseline: *saveBaseline, poolCheck: *poolCheck, checkProbes: *checkProbes, opts: run.Options{
		Selection: run.Selection{Root: sel.root, Matrix: sel.m, Preset: sel.preset, Variants: sel.pattern, DB: sel.db, DBs: sel.dbs},
		Shape: run.Shape{Warmup: *warmup, Duration: *duration, LeadIn: *leadIn, Reps: *reps,
			Connections: *conns, Rate: *rate, Poisson: *arrivals == "poisson", KeepAlive: *keepalive, Seed: *seed},
		Pairing: run.Pairing{Budget: *budget, Precision: *precision, Design: *design, Turn: *turn, MinPairs: *minPairs, MaxPairs: *maxPairs},
		Checks: run.Checks{Profile: run.ProfilingOf(fs.given("profile"), *profile), ProfileTime: *profileTime,
			PoolNeed: pn.need(fs, *rtt, answersPostgres(sel)).Stored()},
		Output:    run.Output{Out: dir, Command: fs.command(args), Verbose: *verbose},
		Placement: run.Placement{RTT: *rtt, Topology: topo(), AppHost: *ah.url, SSH: ssh},
	}}, nil
}

func (c runConfig) run(ctx context.Context, stdout, stderr io.Writer) error {
	dir := c.opts.Out
	fmt.Fprintf(stderr, "results go to %s\n", dir)
	c.opts.Log, c.opts.DB.Log = stderr, stderr
	res, err := run.Run(ctx, c.opts)
	if uerr := hostRefused(err); uerr != nil {
		return uerr
	}
	measured := measuredReps(res)
	if err == nil && res != nil {
		c.checkPools(ctx, res, stderr)
		// Ctrl-C during the check: the run's measurements stand, and the exit status
		// says it was interrupted, as for any run.
		if ctx.Err() != nil {
			err = fmt.Errorf("pool check: %w", run.ErrInterrupted)
		}
	}
	if measured > 0 {
		// The report is written whatever happened: an interrupted run's report says so.
		// The terminal prints the medians and comparisons it judged.
		j, cs, rerr := writeReport(dir)
		if j != nil {
			printSummary(stdout, j)
		}
		if rerr != nil {
			fmt.Fprintf(stderr, "report: %v\n", rerr)
		} else {
			printComparisons(stdout, cs)
			fmt.Fprintf(stdout, "\nreport:  %s\n", filepath.Join(dir, "report.md"))
			fmt.Fprintf(stdout, "         %s\n", filepath.Join(dir, "report.html"))
		}
		fmt.Fprintf(stdout, "results: %s (results.json, bench.txt, findings.csv, histograms/)\n", dir)
		if err == nil {
			fmt.Fprintf(stdout, "compare stmt modes: bin/benchstat -col /stmt %s\n", filepath.Join(dir, "bench.txt"))
		}
	}
	if err != nil {
		kept := keptText(measured, dir)
		if errors.Is(err, run.ErrInterrupted) {
			return fmt.Errorf("%w; %s", err, kept)
		}
		return fmt.Errorf("run failed: %w; %s", err, kept)
	}
	if c.saveBaseline != "" {
		path, berr := compare.SaveBaseline(dir, filepath.Join(c.opts.Root, "reports", "baselines"), c.saveBaseline)
		if berr != nil {
			return berr
		}
		fmt.Fprintf(stdout, "baseline %q saved in %s\n", c.saveBaseline, path)
	}
	// A run with invalid variants is not a clean run: say so in the exit status too.
	var invalid []string
	for _, v := range res.Variants {
		if !v.Valid {
			invalid = append(invalid, v.Key+": "+v.InvalidReason)
		}
	}
	if len(invalid) > 0 {
		return fmt.Errorf("%d of %d variants invalid (all reasons in %s); first: %s",
			len(invalid), len(res.Variants), filepath.Join(dir, "report.md"), invalid[0])
	}
	return nil
}

// checkPools measures the fourth answer on this machine and keeps what it found in
// the run's results.json; where it may not run, it says why. It never fails the run:
// what the check could not do is in its result.
func (c runConfig) checkPools(ctx context.Context, res *results.Run, log io.Writer) {
	need, ok := poolsize.NeedOf(c.opts.PoolNeed)
	if !ok {
		return
	}
	pc := &results.PoolCheck{Rate: need.Rate, SLO: need.P99.Seconds(), RTT: results.Duration(need.RTT)}
	switch {
	case !c.poolCheck:
		pc.Skipped = "--pool-check=false"
	case c.opts.DB.Kind != "" && c.opts.DB.Kind != "embedded":
		pc.Skipped = "the database is yours (--provider " + c.opts.DB.Kind + "): dbbench loads only the server it starts"
	case c.opts.AppHost != "":
		pc.Skipped = "the app runs on another host (--app-host)"
	case c.opts.Topology != "" && c.opts.Topology != results.Loopback:
		pc.Skipped = "the roles run apart (--topology " + string(c.opts.Topology) + ")"
	default:
		o := sweep.CheckOptions{Run: c.opts, Need: need, Cores: runtime.NumCPU(), Probes: c.checkProbes, Dir: c.opts.Out}
		path, err := delay.RoundTrip(ctx, need.RTT) // what the check's proxy adds, its hop included
		if err != nil {
			fmt.Fprintf(log, "pool check: the proxy's round trip: %v; the model takes %v\n", err, need.RTT)
		}
		pc = sweep.Check(ctx, o, sweep.CheckTargets(res, need, o.Cores, path))
	}
	res.PoolCheck = pc
	if err := results.WriteJSON(filepath.Join(c.opts.Out, "results.json"), res); err != nil {
		fmt.Fprintf(log, "pool check: %v\n", err)
	}
}

// countsHead names the counts column as the run's protocols count: MySQL's commands,
// PostgreSQL's frontend messages, or both.
func countsHead(res *results.Run) string {
	mysql, postgres := results.CountedProtocols(res.Variants)
	switch {
	case postgres && mysql:
		return "commands|messages/req"
	case postgres:
		return "messages/req"
	}
	return "commands/req"
}

// printSummary is the table a person reads at the end of a run: medians over the
// slices, invalid variants with their reason; commands beside round trips, as the
// report shows them.
func printSummary(w io.Writer, j *judge.Run) {
	res := j.Results
	fmt.Fprintln(w, "each variant, the median of its slices (a ratio of two of these is not a comparison: see below):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "variant\tslices\treq/s\tp50 ms\tp99 ms\tapp CPU µs/req\tdb CPU µs/req\tgen CPU µs/req\t"+countsHead(res)+"\tround trips/req\t")
	for _, v := range res.Variants {
		if !v.Valid {
			fmt.Fprintf(tw, "%s\tinvalid: %s\t\t\t\t\t\t\t\t\t\n", v.Key, v.InvalidReason)
			continue
		}
		if len(v.Reps) == 0 {
			continue
		}
		// The report's medians (judge.Run.Summary); NaN where the unit was not measured.
		med := func(unit string) float64 {
			if s, ok := j.Summary(v, unit); ok {
				return s.Center
			}
			return math.NaN()
		}
		cmds, trips := "-", "-"
		if v.Roundtrips != nil {
			c, rt := v.Roundtrips.Commands()
			cmds, trips = fmt.Sprintf("%.2f", c), fmt.Sprintf("%.2f", rt)
			if !v.Roundtrips.Match {
				trips += " (!)"
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.2f\t%.2f\t%s\t%s\t%.1f\t%s\t%s\t\n", v.Key, len(v.Reps),
			med(units.QPS), 1e3*med(units.P50), 1e3*med(units.P99), micro(med(units.AppCPU)), micro(med(units.DBCPU)),
			1e6*med(units.GenCPU),
			cmds, trips)
	}
	tw.Flush()
	for _, v := range res.Variants {
		for _, f := range v.Flags {
			fmt.Fprintf(w, "flagged %s: %s\n", v.Key, f)
		}
	}
}

// micro is seconds per request in µs, "n/a" where not measured (a server or an app
// on another host).
func micro(s float64) string {
	if s < 0 || math.IsNaN(s) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f", 1e6*s)
}

// keptText says what an ended run kept, as its results.json on disk holds it: a write
// that failed (a full disk) leaves the previous whole file, with fewer repetitions than
// were measured.
func keptText(measured int, dir string) string {
	if measured == 0 {
		return "nothing was measured"
	}
	onDisk, err := results.Read(filepath.Join(dir, "results.json"))
	switch held := measuredReps(onDisk); {
	case err != nil:
		return fmt.Sprintf("%d slices were measured, but %s cannot be read back: %v", measured, filepath.Join(dir, "results.json"), err)
	case held < measured:
		return fmt.Sprintf("%d slices were measured; %s holds %d of them (its last write failed)", measured, filepath.Join(dir, "results.json"), held)
	}
	return fmt.Sprintf("the %d slices measured are kept in %s", measured, dir)
}

func measuredReps(res *results.Run) int {
	n := 0
	if res != nil {
		for _, v := range res.Variants {
			n += len(v.Reps)
		}
	}
	return n
}

// printComparisons prints the report's comparisons, worded as the report words them:
// each ratio is estimated from pairs of slices measured side by side, not from the
// medians above, so it is the one figure to quote.
func printComparisons(w io.Writer, cs []report.Comparison) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintln(w, "\ncomparisons, as the report gives them: other ÷ base, estimated from pairs (95% interval):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "question\tother\tbase\treq/s\tapp CPU/req\tpairs")
	for _, c := range cs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Question, c.Other, c.Base, c.QPS, c.CPU, c.Pairs)
	}
	tw.Flush()
	fmt.Fprintln(w, report.MarksLegend())
}

// answersPostgres says whether the run's pool answer is for PostgreSQL: the answer is
// for its first server (results.Run.FirstDatabase), the matrix's first when measured.
func answersPostgres(sel selection) bool {
	if len(sel.dbs) == 0 || slices.Contains(sel.dbs, sel.m.DefaultDB()) {
		return false
	}
	return sel.m.ProtocolOf(sel.dbs[0]) == string(protocol.Postgres)
}
