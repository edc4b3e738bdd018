package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"dbbench/runners/matrix"
	"dbbench/runners/report"
	"dbbench/runners/results"
	"dbbench/runners/run"
)

// profileCmd profiles one variant on its own: a short run of just that variant (two
// measured slices, then the profiled one), its report, and where the profiles are.
func profileCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("profile", stderr)
	var df dbFlags
	df.register(fs)
	duration := fs.Duration("duration", run.DefaultProfileTime, "length of the profiled slice (Go's CPU profile counts whole seconds)")
	matrixFile := fs.String("matrix", "", "variant matrix (default runners/matrix.yaml)")
	out := fs.String("out", "", "run directory (default reports/runs/<stamp>-profile)")
	name, err := parseWithVariant(fs, "profile", args)
	if err != nil {
		return err
	}
	if *duration < time.Second {
		return fmt.Errorf("%w: profile: --duration %v: want 1s or more", errUsage, *duration)
	}
	root, m, err := loadMatrix(*matrixFile)
	if err != nil {
		return err
	}
	v, err := m.Resolve(name)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	smoke, err := m.Preset("smoke") // warm-up, connections and slice length of a short run
	if err != nil {
		return err
	}
	dbo, err := df.options(0, stderr)
	if err != nil {
		return err
	}
	dir := cmp.Or(*out, filepath.Join(root, "reports", "runs", time.Now().UTC().Format("20060102-150405")+"-profile"))
	fmt.Fprintf(stderr, "results go to %s\n", dir)
	res, err := run.Run(ctx, run.Options{
		Root: root, Matrix: m, Preset: smoke, List: []matrix.Variant{v}, DB: dbo,
		Duration: time.Second, Reps: 2, Profile: true, ProfileTime: *duration, Out: dir, Log: stderr,
	})
	if res == nil {
		return err
	}
	if rerr := report.Write(dir); rerr != nil {
		fmt.Fprintf(stderr, "report: %v\n", rerr)
	}
	if err != nil {
		return fmt.Errorf("profile: %v", err)
	}
	return printProfile(stdout, dir, res.Variants[0])
}

// printProfile says where the variant's profiles are and how its time splits.
func printProfile(w io.Writer, dir string, v *results.Variant) error {
	p := v.Profile
	if !v.Valid || p == nil {
		return fmt.Errorf("profile: %s has no profile: %s (see %s)", v.Key, cmp.Or(v.InvalidReason, "profiling failed"), filepath.Join(dir, "report.md"))
	}
	clock := "app CPU"
	if p.Clock == "real" {
		clock = "wall time of requests in progress"
	}
	fmt.Fprintf(w, "%s: %d requests profiled over %.0f s; %s per request by component (app CPU measured: %.1f µs):\n",
		v.Key, p.Requests, p.Seconds, clock, p.AppCPU*1e6)
	names := slices.SortedFunc(maps.Keys(p.Components), func(a, b string) int { return cmp.Compare(p.Components[b], p.Components[a]) })
	var sum float64
	for _, c := range names {
		fmt.Fprintf(w, "  %-28s %8.1f µs\n", c, p.Components[c]*1e6)
		sum += p.Components[c]
	}
	fmt.Fprintf(w, "  %-28s %8.1f µs\n", "total", sum*1e6)
	for _, kind := range slices.Sorted(maps.Keys(p.Files)) {
		fmt.Fprintf(w, "%-10s %s\n", kind+":", filepath.Join(dir, p.Files[kind]))
	}
	fmt.Fprintf(w, "report:    %s\nread a pprof file with: go tool pprof -top FILE\n", filepath.Join(dir, "report.md"))
	return nil
}
