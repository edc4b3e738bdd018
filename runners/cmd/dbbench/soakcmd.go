package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"dbbench/runners/matrix"
	"dbbench/runners/soak"
)

// soakCmd is `dbbench soak [flags]`: every variant most at risk of leaking served at
// once at 80% of its capacity for an hour (by default), its resources sampled every
// 10 s, each series judged grows or flat; soak.json, report.md and report.html in --out.
func soakCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("soak", stderr)
	var df dbFlags
	df.register(fs)
	matrixFile := fs.String("matrix", "", "variant matrix (default runners/matrix.yaml)")
	duration := fs.String("duration", soak.DefaultDuration.String(), "how long the variants are served, after the capacity phase")
	interval := fs.String("interval", "", "time between samples, and each load window's length (default: a thirtieth of --duration, from 2s to 10s)")
	warmup := fs.String("warmup", "", "excluded from the verdicts (default: a tenth of --duration, at least 1m when that leaves two thirds)")
	variants := fs.String("variants", "", "comma-separated variant keys, pool and server optional (default: the variants most at risk, from the matrix)")
	pools := fs.String("pools", soak.DefaultPools, "one pool per lang, like go=16,php=4")
	fraction := fs.Float64("rate-fraction", soak.DefaultRateFraction, "each variant is served open loop at this fraction of its capacity")
	capTime := fs.String("capacity-time", soak.DefaultCapacityTime.String(), "closed-loop capacity measurement, every variant at once")
	capWarm := fs.String("capacity-warmup", soak.DefaultCapacityWarmup.String(), "closed-loop warm-up before the capacity measurement")
	conns := fs.Int("connections", 0, "connections per generator, closed and open loop (default: 2 × the variant's pool)")
	seed := fs.Uint64("seed", 1, "seed of the id sequences")
	out := fs.String("out", "", "soak directory (default reports/runs/<stamp>-soak)")
	reportOnly := fs.Bool("report-only", false, "measure nothing: judge the soak already in --out and write its report")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	usageErr := func(format string, a ...any) error {
		return fmt.Errorf("%w: soak: %s", errUsage, fmt.Sprintf(format, a...))
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	if *reportOnly {
		if *out == "" {
			return usageErr("--report-only needs --out DIR")
		}
		return writeSoakReport(*out, stdout, nil)
	}
	o := soak.Options{RateFraction: *fraction, Connections: *conns, Seed: *seed, Log: stderr, Warmup: -1}
	for _, d := range []struct {
		flag, value string
		into        *time.Duration
	}{{"--duration", *duration, &o.Duration}, {"--interval", *interval, &o.Interval}, {"--warmup", *warmup, &o.Warmup},
		{"--capacity-time", *capTime, &o.CapacityTime}, {"--capacity-warmup", *capWarm, &o.CapacityWarmup}} {
		if d.value == "" {
			continue
		}
		v, err := time.ParseDuration(d.value)
		if err != nil {
			return usageErr("%s %q is not a duration (like 90s, 5m or 1h)", d.flag, d.value)
		}
		if v < 0 || (v == 0 && d.flag != "--warmup" && d.flag != "--capacity-warmup") {
			return usageErr("%s must be positive, got %s", d.flag, d.value)
		}
		*d.into = v
	}
	root, m, err := loadMatrix(*matrixFile)
	if err != nil {
		return err
	}
	pl, err := soak.ParsePools(m, *pools)
	if err != nil {
		return usageErr("%v", err)
	}
	if *variants == "" {
		o.Variants, err = soak.DefaultVariants(m, pl)
	} else {
		o.Variants, err = soak.ParseVariants(m, *variants, pl)
	}
	if err != nil {
		return usageErr("%v", err)
	}
	o.Defaults()
	if err := o.Check(); err != nil {
		return usageErr("%v", err)
	}
	if o.DB, err = df.options(0, stderr); err != nil {
		return err
	}
	o.Root, o.Matrix, o.Out = root, m, *out
	if o.Out == "" {
		o.Out = filepath.Join(root, "reports", "runs", time.Now().UTC().Format("20060102-150405")+"-soak")
	}
	fmt.Fprintf(stderr, "soak: %d variants at once for %v (+ about %v to start and measure capacity); results go to %s\n%s",
		len(o.Variants), o.Duration, (o.CapacityWarmup + o.CapacityTime + 10*time.Second).Round(time.Second), o.Out, listKeys(o.Variants))
	f, runErr := soak.Run(ctx, o)
	if f == nil { // refused before anything started
		return runErr
	}
	return writeSoakReport(o.Out, stdout, runErr)
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
		return fmt.Errorf("%v; the %d samples measured are kept in %s", runErr, f.Samples, dir)
	}
	if len(flagged) > 0 {
		return fmt.Errorf("%d series flagged; first: %s", len(flagged), flagged[0])
	}
	fmt.Fprintf(stdout, "nothing grows: %d samples, every series flat\n", f.Samples)
	return nil
}
