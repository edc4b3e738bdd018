package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"time"

	"dbbench/runners/matrix"
	"dbbench/runners/report"
	"dbbench/runners/run"
	"dbbench/runners/sweep"
)

// sweepCmd is `dbbench sweep pool|rtt [flags]`: a few whole runs over variants the sweep
// builds, then the sweep's own report.md and report.html in --out.
func sweepCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "pool" && args[0] != "rtt") {
		return fmt.Errorf("%w: want 'dbbench sweep pool [flags]' or 'dbbench sweep rtt [flags]'", errUsage)
	}
	kind := args[0]
	fs := newFlags("sweep "+kind, stderr)
	var df dbFlags
	df.register(fs)
	matrixFile := fs.String("matrix", "", "variant matrix (default runners/matrix.yaml)")
	out := fs.String("out", "", "sweep directory (default reports/runs/<stamp>-"+kind+"-sweep)")
	seed := fs.Uint64("seed", 1, "seed of the id sequence")
	keepalive := fs.Bool("keepalive", true, "reuse client connections")
	reportOnly := fs.Bool("report-only", false, "measure nothing: write the report of the sweep already in --out")
	var (
		variants, pools, concurrency, delays    string
		warmup, duration, slo                   time.Duration
		reps, appInstances, maxConns, cores, sp int
		rate                                    float64
		conc, probes, openConns                 int
	)
	switch kind {
	case "pool":
		fs.StringVar(&variants, "variants", sweep.DefaultPoolVariants, "comma-separated variant keys without pool")
		fs.StringVar(&pools, "pools", "", "pool sizes per lang, like 'go=1,4,16;php=1,4' (default: the matrix's pool_sweep)")
		fs.StringVar(&concurrency, "concurrency", "256", "closed-loop client connections of the throughput step (the USL against pool size is fitted at the highest)")
		fs.DurationVar(&warmup, "warmup", 500*time.Millisecond, "load for each target after it starts")
		fs.DurationVar(&duration, "duration", time.Second, "measured time of one slice")
		fs.IntVar(&reps, "reps", 3, "slices per point and client count in the closed-loop steps")
		fs.Float64Var(&rate, "rate", 2000, "the peak arrival rate to size for, requests per second per app instance")
		fs.DurationVar(&slo, "slo-p99", 50*time.Millisecond, "the p99 target the capacity search holds")
		fs.IntVar(&probes, "probes", 6, "bisection rounds of the capacity search (each halves the interval)")
		fs.IntVar(&openConns, "open-connections", 256, "connections of the open-loop generator in the capacity search: enough for the rate times the p99")
		fs.IntVar(&appInstances, "app-instances", 4, "app instances sharing the database, for the max_connections advice")
		fs.IntVar(&maxConns, "max-connections", 151, "the production server's max_connections (151 is MariaDB's and MySQL's default)")
		fs.IntVar(&cores, "db-cores", runtime.NumCPU(), "database cores, for the rule of thumb (default: this host's)")
		fs.IntVar(&sp, "spindles", 1, "database spindles, for the rule of thumb (1 for an SSD)")
	case "rtt":
		fs.StringVar(&variants, "variants", sweep.DefaultRTTVariants, "comma-separated variant keys")
		fs.StringVar(&delays, "delays", "0,0.2,1,5", "delay added in each direction, ms or durations (200us)")
		fs.IntVar(&conc, "concurrency", 64, "closed loop: client connections")
		fs.Float64Var(&rate, "rate", 400, "open loop: requests per second in all (0: closed loop only)")
		fs.DurationVar(&warmup, "warmup", 500*time.Millisecond, "warm-up before each repetition")
		fs.DurationVar(&duration, "duration", 1500*time.Millisecond, "measured time per repetition")
		fs.IntVar(&reps, "reps", 6, "repetitions per variant and run (6 is the fewest with a 95% interval)")
	}
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: sweep %s: unexpected argument %q", errUsage, kind, fs.Arg(0))
	}
	if warmup < 0 || duration <= 0 || reps < 1 || rate < 0 {
		return fmt.Errorf("%w: sweep %s: --warmup must not be negative, --duration and --reps must be positive, --rate not negative", errUsage, kind)
	}
	root, m, err := loadMatrix(*matrixFile)
	if err != nil {
		return err
	}
	dbo, err := df.options(0, stderr)
	if err != nil {
		return err
	}
	dir := *out
	if *reportOnly && dir == "" {
		return fmt.Errorf("%w: sweep %s: --report-only needs --out DIR", errUsage, kind)
	}
	if dir == "" {
		dir = filepath.Join(root, "reports", "runs", time.Now().UTC().Format("20060102-150405")+"-"+kind+"-sweep")
	}
	ro := run.Options{
		Root: root, Matrix: m, DB: dbo, Warmup: warmup, Duration: duration, Reps: reps,
		KeepAlive: *keepalive, Seed: *seed, Log: stderr,
		// The preset only fills what the sweep leaves zero, and names the runs.
		Preset: &matrix.Preset{Name: kind + "-sweep", Warmup: warmup, Duration: duration, Reps: reps, Connections: 1},
	}
	usageErr := func(err error) error { return fmt.Errorf("%w: sweep %s: %v", errUsage, kind, err) }
	var runErr error
	var page *report.SweepPage
	switch kind {
	case "pool":
		if appInstances < 1 || maxConns < 1 || cores < 1 || sp < 0 || rate <= 0 || slo <= 0 || probes < 1 || openConns < 1 {
			return usageErr(errors.New("--app-instances, --max-connections, --db-cores, --rate, --slo-p99, --probes and --open-connections must be positive, --spindles not negative"))
		}
		vs, err := sweep.ParseVariants(m, variants, 1)
		if err != nil {
			return usageErr(err)
		}
		levels, err := sweep.ParseInts("--concurrency", concurrency)
		if err != nil {
			return usageErr(err)
		}
		pl, err := sweep.ParsePools(m, pools)
		if err != nil {
			return usageErr(err)
		}
		// The round trips do not depend on the pool: a short capture keeps the check quick.
		ro.RoundtripRequests = 20
		po := sweep.PoolOptions{Run: ro, Variants: vs, Pools: pl, Out: dir, Plan: sweep.PoolPlan{
			Levels: levels, Reps: reps, SLO: slo, Probes: probes, OpenConnections: openConns, Seed: *seed}}
		if !*reportOnly {
			fmt.Fprintf(stderr, "pool sweep: about %v; results go to %s\n", sweep.PoolEstimate(po).Round(time.Minute), dir)
			runErr = sweep.Pool(ctx, po)
		}
		r, err := sweep.LoadPool(dir)
		if err != nil {
			return errors.Join(runErr, err)
		}
		page = sweep.PoolPage(r, sweep.Production{Rate: rate, SLO: slo, DBCores: cores, Spindles: sp, MaxConnections: maxConns, AppInstances: appInstances})
	case "rtt":
		if conc < 1 {
			return usageErr(errors.New("--concurrency must be at least 1"))
		}
		vs, err := sweep.ParseVariants(m, variants, 64)
		if err != nil {
			return usageErr(err)
		}
		ds, err := sweep.ParseDelays(delays)
		if err != nil {
			return usageErr(err)
		}
		ro.RoundtripRequests = 50 // each one waits out the delay, one at a time
		runs := len(ds)
		if rate > 0 {
			runs *= 2
		}
		if !*reportOnly {
			fmt.Fprintf(stderr, "rtt sweep: %d points × %d reps in %d runs, about %v; results go to %s\n",
				runs*len(vs), reps, runs, sweep.Estimate(runs*len(vs), runs, reps, warmup, duration).Round(time.Minute), dir)
			runErr = sweep.RTT(ctx, sweep.RTTOptions{Run: ro, Variants: vs, Delays: ds, Concurrency: conc, Rate: rate, Out: dir})
		}
		plan, points, err := sweep.LoadRTT(dir)
		if err != nil {
			return errors.Join(runErr, err)
		}
		page = sweep.RTTPage(plan, points)
	}
	// The report is written whatever happened: an interrupted sweep reports what it has.
	if err := report.WriteSweep(dir, page); err != nil {
		return errors.Join(runErr, err)
	}
	fmt.Fprintf(stdout, "report:  %s\n         %s\n", filepath.Join(dir, "report.md"), filepath.Join(dir, "report.html"))
	if runErr != nil {
		return fmt.Errorf("%v; what was measured is kept in %s", runErr, dir)
	}
	return nil
}
