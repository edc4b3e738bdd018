package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/soak"
)

// parseSoak is `dbbench soak [flags]`: every variant most at risk of leaking served at
// once at 80% of its capacity for an hour (by default), its resources sampled every
// 10 s, each series judged; soak.json, report.md and report.html in --out.
func parseSoak(fs *flagSet, args []string) (action, error) {
	var df dbFlags
	df.register(fs)
	matrixFile := fs.String("matrix", "", anything, "variant matrix (default runners/matrix.yaml)")
	duration := fs.Duration("duration", soak.DefaultDuration, above0, "how long the variants are served, after the capacity phase")
	interval := fs.Duration("interval", 0, above0, "time between samples, and each load window's length (default: a thirtieth of --duration, from 2s to 10s)")
	warmup := fs.Duration("warmup", 0, atLeast0, "excluded from the verdicts (default: a tenth of --duration, at least 1m when that leaves two thirds)")
	variants := fs.String("variants", "", anything, "comma-separated variant keys, pool and server optional (default: the variants most at risk, from the matrix)")
	pools := fs.String("pools", soak.DefaultPools, anything, "one pool per lang, like go=16,php=4")
	rateFraction := fs.Float("rate-fraction", soak.DefaultRateFraction, fraction, "each variant is served open loop at this fraction of its capacity")
	capTime := fs.Duration("capacity-time", soak.DefaultCapacityTime, above0, "closed-loop capacity measurement, every variant at once")
	capWarm := fs.Duration("capacity-warmup", soak.DefaultCapacityWarmup, atLeast0, "closed-loop warm-up before the capacity measurement")
	conns := fs.Int("connections", 0, atLeast(1), "connections per generator, closed and open loop (default: 2 × the variant's pool)")
	seed := fs.Uint64("seed", 1, "seed of the id sequences")
	out := fs.String("out", "", anything, "soak directory (default reports/runs/<stamp>-soak)")
	reportOnly := fs.Bool("report-only", false, "measure nothing: judge the soak already in --out and write its report")
	topo := topologyFlag(fs)
	if err := fs.parse(args); err != nil {
		return nil, err
	}
	if err := fs.noArgs(); err != nil {
		return nil, err
	}
	usageErr := func(format string, a ...any) error {
		return fmt.Errorf("%w: soak: %s", errUsage, fmt.Sprintf(format, a...))
	}
	if *reportOnly {
		if *out == "" {
			return nil, usageErr("--report-only needs --out DIR")
		}
		return func(_ context.Context, stdout, _ io.Writer) error { return writeSoakReport(*out, stdout, nil) }, nil
	}
	o := soak.Options{Duration: *duration, Interval: *interval, Warmup: -1, CapacityTime: *capTime, CapacityWarmup: *capWarm,
		RateFraction: *rateFraction, Connections: *conns, Seed: *seed}
	if fs.given("warmup") {
		o.Warmup = *warmup
	}
	root, m, err := loadMatrix(*matrixFile)
	if err != nil {
		return nil, err
	}
	pl, err := soak.ParsePools(m, *pools)
	if err != nil {
		return nil, fs.named("pools", err)
	}
	if o.DB, err = df.options(0, fs.out); err != nil {
		return nil, err
	}
	if *variants == "" {
		o.Variants, err = soak.DefaultVariants(m, pl, o.DB.Server)
	} else if o.Variants, err = soak.ParseVariants(m, *variants, pl, o.DB.Server); err != nil {
		return nil, fs.named("variants", err)
	}
	if err != nil {
		return nil, err
	}
	o.Defaults()
	if err := o.Check(); err != nil {
		return nil, usageErr("%v", err)
	}
	if err := checkTopology(fs, topo(), o.DB); err != nil {
		return nil, err
	}
	o.Root, o.Matrix, o.Out, o.Topology = root, m, *out, topo()
	if o.Out == "" {
		o.Out = filepath.Join(root, "reports", "runs", time.Now().UTC().Format("20060102-150405")+"-soak")
	}
	return func(ctx context.Context, stdout, stderr io.Writer) error {
		o.Log, o.DB.Log = stderr, stderr
		fmt.Fprintf(stderr, "soak: %d variants at once for %v, a sample every %v (+ about %v to start and measure capacity); results go to %s\n%s",
			len(o.Variants), o.Duration, o.Interval, (o.CapacityWarmup + o.CapacityTime + 10*time.Second).Round(time.Second), o.Out, listKeys(o.Variants))
		f, runErr := soak.Run(ctx, o)
		if f == nil { // refused before anything started
			return runErr
		}
		return writeSoakReport(o.Out, stdout, runErr)
	}, nil
}

func listKeys(vs []matrix.Variant) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "  %s\n", v.Key())
	}
	return b.String()
}

// writeSoakReport judges the soak in dir, writes its report, prints the flagged series,
// and says how the soak ended. runErr is how the measurement ended (nil: complete).
func writeSoakReport(dir string, stdout io.Writer, runErr error) error {
	f, err := soak.WriteReport(dir)
	if err != nil {
		return errors.Join(runErr, err)
	}
	fmt.Fprintf(stdout, "report:  %s\n         %s\nresults: %s\n", filepath.Join(dir, "report.md"),
		filepath.Join(dir, "report.html"), filepath.Join(dir, soak.FileName))
	names, roles := f.Roles()
	var flagged []string
	for i, r := range roles {
		for _, s := range r.Series {
			if s.Verdict != nil && s.Verdict.Flagged() {
				line := fmt.Sprintf("%s: %s %s (%s)", names[i], s.Name, s.Verdict.Verdict, s.Verdict.Reason)
				flagged = append(flagged, line)
				fmt.Fprintln(stdout, "flagged "+line)
			}
		}
	}
	if runErr != nil {
		return fmt.Errorf("%w; the %d samples measured are kept in %s", runErr, f.Samples, dir)
	}
	if len(flagged) > 0 {
		return fmt.Errorf("%d series flagged; first: %s", len(flagged), flagged[0])
	}
	if rising := f.Rising(); len(rising) > 0 {
		return fmt.Errorf("%w: %s; soak longer to tell a leak from settling (each verdict in the report says how long)", errRising, strings.Join(rising, "; "))
	}
	fmt.Fprintf(stdout, "nothing flagged: %d samples, and nothing the database holds rises\n", f.Samples)
	return nil
}
