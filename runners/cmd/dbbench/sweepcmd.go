package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"dbbench/dsn/protocol"
	"dbbench/runners/define/matrix"
	"dbbench/runners/judge/poolsize"
	"dbbench/runners/measure/run"
	"dbbench/runners/present/doc"
	"dbbench/runners/results"
	"dbbench/runners/sweep"
)

// sweepFlags are what both sweeps share: a few whole runs over variants the sweep
// builds, then the sweep's own report.md and report.html in --out.
type sweepFlags struct {
	kind                  string
	db                    dbFlags
	matrixFile, out       *string
	seed                  *uint64
	keepalive, reportOnly *bool
	warmup, duration      *time.Duration
	reps                  *int
	topology              func() results.TopologyKind
}

func (f *sweepFlags) register(fs *flagSet, kind string, warmup, duration time.Duration, reps int) {
	f.kind = kind
	f.db.register(fs)
	f.matrixFile = fs.String("matrix", "", anything, "variant matrix (default runners/matrix.yaml)")
	f.out = fs.String("out", "", anything, "sweep directory (default reports/runs/<stamp>-"+kind+"-sweep)")
	f.seed = fs.Uint64("seed", 1, "seed of the id sequence")
	f.keepalive = fs.Bool("keepalive", true, "reuse client connections")
	f.reportOnly = fs.Bool("report-only", false, "measure nothing: write the report of the sweep already in --out")
	f.warmup = fs.Duration("warmup", warmup, atLeast0, "load for each target after it starts")
	f.duration = fs.Duration("duration", duration, above0, "measured time of one slice")
	f.reps = fs.Int("reps", reps, atLeast(1), "slices per point")
	f.topology = topologyFlag(fs)
}

// parse parses args with every flag defined, refuses positional arguments, reads the
// matrix and the database options, and returns the run options every run of the sweep
// shares, with the sweep's directory.
func (f *sweepFlags) parse(fs *flagSet, args []string) (*matrix.Matrix, run.Options, string, error) {
	if err := fs.parse(args); err != nil {
		return nil, run.Options{}, "", err
	}
	if err := fs.noArgs(); err != nil {
		return nil, run.Options{}, "", err
	}
	root, m, err := loadMatrix(*f.matrixFile)
	if err != nil {
		return nil, run.Options{}, "", err
	}
	dbo, err := f.db.options(0, fs.out)
	if err != nil {
		return nil, run.Options{}, "", err
	}
	if err := checkTopology(fs, f.topology(), dbo); err != nil {
		return nil, run.Options{}, "", err
	}
	dir := *f.out
	if *f.reportOnly && dir == "" {
		return nil, run.Options{}, "", fmt.Errorf("%w: %s: --report-only needs --out DIR", errUsage, fs.cmd)
	}
	if dir == "" {
		dir = filepath.Join(root, "reports", "runs", time.Now().UTC().Format("20060102-150405")+"-"+f.kind+"-sweep")
	}
	w, d, reps := *f.warmup, *f.duration, *f.reps
	ro := run.Options{
		Selection: run.Selection{Root: root, Matrix: m, DB: dbo,
			// The preset only fills what the sweep leaves zero, and names the runs.
			Preset: &matrix.Preset{Name: f.kind + "-sweep", Warmup: w, Duration: d, Reps: reps, Connections: 1}},
		Shape:     run.Shape{Warmup: w, Duration: d, Reps: reps, KeepAlive: *f.keepalive, Seed: *f.seed},
		Placement: run.Placement{Topology: f.topology()},
	}
	return m, ro, dir, nil
}

func parseSweepPool(fs *flagSet, args []string) (action, error) {
	var sf sweepFlags
	sf.register(fs, "pool", 500*time.Millisecond, time.Second, sweep.DefaultCeilingReps)
	variants := fs.String("variants", "", anything, "comma-separated variant keys without pool (default: raw and ORM in each language, in the mode of fewest round trips on --db's protocol)")
	pools := fs.String("pools", "", anything, "pool sizes per lang, like 'go=1,4,16;php=1,4' (default: the matrix's pool_sweep)")
	concurrency := fs.String("concurrency", "64", anything, "closed-loop client connections of the ceiling step, the top of each capacity search (of a list, the largest)")
	rate := fs.Float("rate", defaultPoolRate, above0, "the peak arrival rate to size for, requests per second per app instance")
	slo := fs.Duration("slo-p99", defaultPoolP99, above0, "the p99 target the capacity search holds")
	rtt := fs.Duration("rtt", defaultPoolRTT, atLeast0, "round-trip time added between the targets and the database, half each way (a delay proxy): the distance to production's database")
	searches := fs.Int("searches", sweep.DefaultSearches, atLeast(1), "independent capacity searches per pool (6 give a 97% interval of their median)")
	probes := fs.Int("probes", sweep.DefaultProbes, atLeast(1), "bisection rounds of each capacity search (each halves its bracket)")
	openConns := fs.Int("open-connections", 256, atLeast(1), "connections of the open-loop generator in the capacity search: enough for the rate times the p99")
	appInstances := fs.Int("app-instances", defaultInstances, atLeast(1), "app instances sharing the database, for the max_connections advice")
	maxConns := fs.Int("max-connections", defaultMaxConns, atLeast(1), "the production server's max_connections (151 is MariaDB's and MySQL's default)")
	appCores := fs.Int("app-cores", runtime.NumCPU(), atLeast(1), "cores of a production app instance's host, for the CPU the model's answer knows (default: this host's)")
	dbCores := fs.Int("db-cores", runtime.NumCPU(), atLeast(1), "cores of the production database's host, for the CPU the model's answer knows (default: this host's)")
	// Kept so that older command lines still run: the rule of thumb it fed is no
	// longer part of the advice, which the measured capacities and the model give.
	fs.Int("spindles", 1, atLeast0, "ignored (the rule of thumb it fed is no longer part of the advice)")
	m, ro, dir, err := sf.parse(fs, args)
	if err != nil {
		return nil, err
	}
	vs, err := sweep.ParseVariants(m, cmp.Or(*variants, sweep.DefaultPoolVariants[protocol.Protocol(m.ProtocolOf(ro.DB.Server))]), 1, ro.DB.Server)
	if err != nil {
		return nil, fs.named("variants", err)
	}
	levels, err := sweep.ParseInts("--concurrency", *concurrency)
	if err != nil {
		return nil, fs.named("concurrency", err)
	}
	pl, err := sweep.ParsePools(m, *pools)
	if err != nil {
		return nil, fs.named("pools", err)
	}
	need := poolsize.Need{Rate: *rate, P99: *slo, RTT: *rtt, Instances: *appInstances, MaxConnections: *maxConns, AppCores: *appCores, DBCores: *dbCores}
	// The hold a pool is sized from is measured by the round-trip count's requests,
	// one at a time: enough of them for a mean with a narrow interval.
	ro.RoundtripRequests, ro.RTT, ro.PoolNeed, ro.Command = 50, *rtt, need.Stored(), fs.command(args)
	po := sweep.PoolOptions{Run: ro, Variants: vs, Pools: pl, Out: dir, Plan: sweep.PoolPlan{
		Connections: slices.Max(levels), CeilingReps: *sf.reps, SLO: *slo, Searches: *searches, Probes: *probes,
		OpenConnections: *openConns, Seed: *sf.seed}}
	reportOnly := *sf.reportOnly
	return func(ctx context.Context, stdout, stderr io.Writer) error {
		var runErr error
		if !reportOnly {
			po.Run.Log, po.Run.DB.Log = stderr, stderr
			fmt.Fprintf(stderr, "pool sweep: about %v; results go to %s\n", sweep.PoolEstimate(po).Round(time.Minute), dir)
			runErr = sweep.Pool(ctx, po)
		}
		r, err := sweep.LoadPool(dir)
		if err != nil {
			return errors.Join(runErr, err)
		}
		if stored, ok := poolsize.NeedOf(r.Settings.PoolNeed); ok && reportOnly {
			need = keepStored(fs, need, stored)
		}
		judged := sweep.JudgePool(r, need)
		return writeSweep(stdout, dir, sweep.PoolPage(judged), errors.Join(runErr, judged.WriteJudgement(dir)))
	}, nil
}

func parseSweepRTT(fs *flagSet, args []string) (action, error) {
	var sf sweepFlags
	sf.register(fs, "rtt", 500*time.Millisecond, 1500*time.Millisecond, 6)
	variants := fs.String("variants", "", anything, "comma-separated variant keys (default: the raw driver in every statement mode of --db's protocol, in each language)")
	delays := fs.String("delays", "0,0.2,1,5", anything, "delay added in each direction, ms or durations (200us)")
	conc := fs.Int("concurrency", 64, atLeast(1), "closed loop: client connections")
	rate := fs.Float("rate", 400, atLeast0, "open loop: requests per second in all (0: closed loop only)")
	m, ro, dir, err := sf.parse(fs, args)
	if err != nil {
		return nil, err
	}
	vs, err := sweep.ParseVariants(m, cmp.Or(*variants, sweep.DefaultRTTVariants[protocol.Protocol(m.ProtocolOf(ro.DB.Server))]), 64, ro.DB.Server)
	if err != nil {
		return nil, fs.named("variants", err)
	}
	ds, err := sweep.ParseDelays(*delays)
	if err != nil {
		return nil, fs.named("delays", err)
	}
	ro.RoundtripRequests = 50 // each one waits out the delay, one at a time
	runs := len(ds)
	if *rate > 0 {
		runs *= 2
	}
	reportOnly := *sf.reportOnly
	reps := *sf.reps
	o := sweep.RTTOptions{Run: ro, Variants: vs, Delays: ds, Concurrency: *conc, Rate: *rate, Out: dir}
	return func(ctx context.Context, stdout, stderr io.Writer) error {
		var runErr error
		if !reportOnly {
			o.Run.Log, o.Run.DB.Log = stderr, stderr
			fmt.Fprintf(stderr, "rtt sweep: %d points × %d slices in %d runs, about %v; results go to %s\n",
				runs*len(vs), reps, runs, sweep.RTTEstimate(o).Round(time.Minute), dir)
			runErr = sweep.RTT(ctx, o)
		}
		plan, points, err := sweep.LoadRTT(dir)
		if err != nil {
			return errors.Join(runErr, err)
		}
		return writeSweep(stdout, dir, sweep.RTTPage(plan, points), errors.Join(runErr, sweep.WriteRTTJudgement(dir, points)))
	}, nil
}

// writeSweep writes the sweep's report whatever happened: an interrupted sweep reports
// what it has.
func writeSweep(stdout io.Writer, dir string, page *doc.Page, runErr error) error {
	if err := doc.Write(dir, page); err != nil {
		return errors.Join(runErr, err)
	}
	fmt.Fprintf(stdout, "report:  %s\n         %s\n", filepath.Join(dir, "report.md"), filepath.Join(dir, "report.html"))
	if runErr != nil {
		return fmt.Errorf("%w; what was measured is kept in %s", runErr, dir)
	}
	return nil
}

// keepStored is the need a report of a sweep already measured is written for: the
// sweep's own, but for what the command line gives anew, so that --report-only alone
// re-renders the same answer rather than the flags' defaults.
func keepStored(fs *flagSet, need, stored poolsize.Need) poolsize.Need {
	keep := func(flag string, field *int, value int) {
		if !fs.given(flag) && value > 0 {
			*field = value
		}
	}
	if !fs.given("rate") {
		need.Rate = stored.Rate
	}
	if !fs.given("slo-p99") {
		need.P99 = stored.P99
	}
	if !fs.given("rtt") {
		need.RTT = stored.RTT
	}
	keep("app-instances", &need.Instances, stored.Instances)
	keep("max-connections", &need.MaxConnections, stored.MaxConnections)
	keep("app-cores", &need.AppCores, stored.AppCores)
	keep("db-cores", &need.DBCores, stored.DBCores)
	return need
}
