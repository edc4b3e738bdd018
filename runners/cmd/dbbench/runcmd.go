package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"text/tabwriter"
	"time"

	"dbbench/runners/compare"
	"dbbench/runners/report"
	"dbbench/runners/results"
	"dbbench/runners/run"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", stderr)
	var df dbFlags
	df.register(fs)
	preset := fs.String("preset", "quick", "preset from the matrix: smoke, quick, full")
	variants := fs.String("variants", "", "keep only variants whose key matches this regular expression")
	matrixFile := fs.String("matrix", "", "variant matrix (default runners/matrix.yaml)")
	duration := fs.Duration("duration", 0, "measured time of one slice (default: the preset's)")
	warmup := fs.Duration("warmup", 0, "load for each target after it starts (default: the preset's)")
	leadIn := fs.Duration("lead-in", 0, "load before each slice, not measured (default 150ms)")
	reps := fs.Int("reps", 0, "slices of a variant in no comparison, such as hello (default: the preset's)")
	budget := fs.Duration("budget", 0, "time for all the paired slices (default: the preset's); no comparison stops below --min-pairs")
	precision := fs.Float64("precision", 0, fmt.Sprintf("stop a comparison once its QPS and app CPU ratios are known within ± this many percent (95%% interval) (default: the preset's, else %g)", 100*run.DefaultPrecision))
	design := fs.String("design", "", "pairing: interleave (the variants take turns within blocks; the default in closed loop), walk (each slice pairs with its neighbours; the default with --rate) or alternate (two fresh slices a pair)")
	turn := fs.Duration("turn", 0, fmt.Sprintf("interleave: the shortest turn of a variant in a block (default %v; a slow variant's is %d× its median latency)", run.DefaultTurn, run.TurnsPerLatency))
	minPairs := fs.Int("min-pairs", 0, "pairs per comparison before it may stop (default 6, the fewest with a 95% interval)")
	maxPairs := fs.Int("max-pairs", 0, "pairs after which a comparison stops (default 60)")
	profile := fs.Bool("profile", false, "after the measured slices, profile one slice of each variant (CPU and allocations) into profiles/ (the smoke preset always does; --profile=false stops it)")
	profileTime := fs.Duration("profile-time", 0, "length of the profiled slice (default 3s)")
	conns := fs.Int("connections", 0, "closed loop: client connections (default: the preset's)")
	rate := fs.Float64("rate", 0, "open loop: requests per second in all (0: closed loop)")
	keepalive := fs.Bool("keepalive", true, "reuse client connections (false: a new TCP connection per request)")
	seed := fs.Uint64("seed", 1, "seed of the id sequence")
	out := fs.String("out", "", "run directory (default reports/runs/<stamp>)")
	saveBaseline := fs.String("save-baseline", "", "also save the run as a named baseline for 'dbbench compare --baseline NAME'")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: run: unexpected argument %q", errUsage, fs.Arg(0))
	}
	for name, bad := range map[string]bool{
		"--duration": *duration < 0, "--warmup": *warmup < 0, "--reps": *reps < 0,
		"--connections": *conns < 0, "--rate": *rate < 0, "--lead-in": *leadIn < 0, "--budget": *budget < 0,
		"--precision": *precision < 0 || *precision >= 100, "--min-pairs": *minPairs < 0, "--max-pairs": *maxPairs < 0,
		"--profile-time": *profileTime < 0, "--turn": *turn < 0,
	} {
		if bad {
			return fmt.Errorf("%w: run: %s must not be negative (--precision: a percentage above 0 and below 100)", errUsage, name)
		}
	}
	if *design != "" && *design != run.Interleave && *design != run.Walk && *design != run.Alternate {
		return fmt.Errorf("%w: run: --design %q: want %s, %s or %s", errUsage, *design, run.Interleave, run.Walk, run.Alternate)
	}
	if *design == run.Interleave && *rate > 0 {
		return fmt.Errorf("%w: run: --design interleave takes turns in closed loop; with --rate use --design walk or alternate", errUsage)
	}
	if *minPairs > 0 && *minPairs < stats.MinPairs {
		return fmt.Errorf("%w: run: --min-pairs %d: a 95%% interval needs at least %d pairs", errUsage, *minPairs, stats.MinPairs)
	}
	if *maxPairs > 0 && *maxPairs < max(*minPairs, stats.MinPairs) {
		return fmt.Errorf("%w: run: --max-pairs %d is below --min-pairs", errUsage, *maxPairs)
	}
	root, m, err := loadMatrix(*matrixFile)
	if err != nil {
		return err
	}
	p, err := m.Preset(*preset)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	var re *regexp.Regexp
	if *variants != "" {
		if re, err = regexp.Compile(*variants); err != nil {
			return fmt.Errorf("%w: run: --variants: %v", errUsage, err)
		}
	}
	dbo, err := df.options(0, stderr)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join(root, "reports", "runs", time.Now().UTC().Format("20060102-150405"))
	}
	fmt.Fprintf(stderr, "results go to %s\n", dir)
	res, err := run.Run(ctx, run.Options{
		Root: root, Matrix: m, Preset: p, Variants: re, DB: dbo,
		Warmup: *warmup, Duration: *duration, LeadIn: *leadIn, Reps: *reps, Connections: *conns,
		Budget: *budget, Precision: *precision / 100, Design: *design, Turn: *turn, MinPairs: *minPairs, MaxPairs: *maxPairs,
		Profile: *profile, NoProfile: explicitlyOff(fs, "profile", *profile), ProfileTime: *profileTime,
		Rate: *rate, KeepAlive: *keepalive, Seed: *seed, Out: dir, Log: stderr,
	})
	if res != nil {
		printSummary(stdout, res)
		// The report is written whatever happened: an interrupted run's report says so.
		if rerr := report.Write(dir); rerr != nil {
			fmt.Fprintf(stderr, "report: %v\n", rerr)
		} else {
			fmt.Fprintf(stdout, "\nreport:  %s\n", filepath.Join(dir, "report.md"))
			fmt.Fprintf(stdout, "         %s\n", filepath.Join(dir, "report.html"))
		}
		fmt.Fprintf(stdout, "results: %s (results.json, bench.txt, histograms/)\n", dir)
		fmt.Fprintf(stdout, "compare stmt modes: bin/benchstat -col /stmt %s\n", filepath.Join(dir, "bench.txt"))
	}
	if err == nil && *saveBaseline != "" {
		path, berr := compare.SaveBaseline(dir, filepath.Join(root, "reports", "baselines"), *saveBaseline)
		if berr != nil {
			return berr
		}
		fmt.Fprintf(stdout, "baseline %q saved in %s\n", *saveBaseline, path)
	}
	if err != nil {
		kept := "nothing was measured yet"
		if n := measuredReps(res); n > 0 {
			kept = fmt.Sprintf("the %d repetitions measured are kept in %s", n, dir)
		}
		if errors.Is(err, run.ErrInterrupted) {
			return fmt.Errorf("%v; %s", err, kept)
		}
		return fmt.Errorf("run failed: %v; %s", err, kept)
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

// printSummary is the table a person reads at the end of a run: medians over the
// repetitions, invalid variants with their reason.
func printSummary(w io.Writer, res *results.Run) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "variant\treps\treq/s\tp50 ms\tp99 ms\tapp µs/op\tdb µs/op\tgen µs/op\troundtrips/op\t")
	for _, v := range res.Variants {
		if !v.Valid {
			fmt.Fprintf(tw, "%s\tinvalid: %s\t\t\t\t\t\t\t\t\n", v.Key, v.InvalidReason)
			continue
		}
		if len(v.Reps) == 0 {
			continue
		}
		med := func(unit string, f func(*results.Repetition) float64) float64 {
			xs := make([]float64, len(v.Reps))
			for i, r := range v.Reps {
				xs[i] = f(r)
			}
			s, err := stats.Summarize(xs, unit)
			if err != nil {
				return math.NaN()
			}
			return s.Center
		}
		trips := "-"
		if v.Roundtrips != nil {
			_, rt := v.Roundtrips.Commands()
			trips = fmt.Sprintf("%.2f", rt)
			if !v.Roundtrips.Match {
				trips += " (!)"
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.2f\t%.2f\t%.1f\t%s\t%.1f\t%s\t\n", v.Key, len(v.Reps),
			med(units.QPS, func(r *results.Repetition) float64 { return r.QPS }),
			1e3*med(units.P50, func(r *results.Repetition) float64 { return r.P50 }),
			1e3*med(units.P99, func(r *results.Repetition) float64 { return r.P99 }),
			1e6*med(units.AppCPU, func(r *results.Repetition) float64 { return r.AppCPU }),
			micro(med(units.DBCPU, func(r *results.Repetition) float64 { return r.DBCPU })),
			1e6*med(units.GenCPU, func(r *results.Repetition) float64 { return r.GenCPU }),
			trips)
	}
	tw.Flush()
	for _, v := range res.Variants {
		for _, f := range v.Flags {
			fmt.Fprintf(w, "flagged %s: %s\n", v.Key, f)
		}
	}
}

func micro(s float64) string {
	if s < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f", 1e6*s)
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

// explicitlyOff says whether the boolean flag name was given, as false: a preset's
// default (smoke profiles) then gives way.
func explicitlyOff(fs *flag.FlagSet, name string, value bool) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given && !value
}
