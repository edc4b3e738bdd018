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

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/provider"
	"dbbench/runners/measure/run"
	"dbbench/runners/results"
)

// profileConfig is `dbbench profile VARIANT`: a short run of just that variant (two
// measured slices, then the profiled one), its report, and where the profiles are.
type profileConfig struct {
	root     string
	m        *matrix.Matrix
	variant  matrix.Variant
	smoke    *matrix.Preset
	db       provider.Options
	duration time.Duration
	out      string
}

func parseProfile(fs *flagSet, args []string) (action, error) {
	var df dbFlags
	df.register(fs)
	duration := fs.Duration("duration", run.DefaultProfileTime, atLeastTime(time.Second), "length of the profiled slice (Go's CPU profile counts whole seconds)")
	matrixFile := fs.String("matrix", "", anything, "variant matrix (default runners/matrix.yaml)")
	out := fs.String("out", "", anything, "run directory (default reports/runs/<stamp>-profile)")
	name, err := parseWithVariant(fs, args)
	if err != nil {
		return nil, err
	}
	c := profileConfig{duration: *duration}
	if c.root, c.m, err = loadMatrix(*matrixFile); err != nil {
		return nil, err
	}
	spec, err := resolveSpec(c.m, name)
	if err != nil {
		return nil, err
	}
	c.variant = spec.Variant
	if c.smoke, err = c.m.Preset("smoke"); err != nil { // warm-up, connections and slice length of a short run
		return nil, err
	}
	if c.db, err = df.options(0, fs.out); err != nil {
		return nil, err
	}
	c.out = cmp.Or(*out, filepath.Join(c.root, "reports", "runs", time.Now().UTC().Format("20060102-150405")+"-profile"))
	return c.run, nil
}

func (c profileConfig) run(ctx context.Context, stdout, stderr io.Writer) error {
	fmt.Fprintf(stderr, "results go to %s\n", c.out)
	c.db.Log = stderr
	res, err := run.Run(ctx, run.Options{
		Selection: run.Selection{Root: c.root, Matrix: c.m, Preset: c.smoke, List: []matrix.Variant{c.variant}, DB: c.db},
		Shape:     run.Shape{Duration: time.Second, Reps: 2},
		Checks:    run.Checks{Profile: run.ProfileOn, ProfileTime: c.duration},
		Output:    run.Output{Out: c.out, Log: stderr},
	})
	if measuredReps(res) == 0 {
		return err
	}
	if _, _, rerr := writeReport(c.out); rerr != nil {
		fmt.Fprintf(stderr, "report: %v\n", rerr)
	}
	if err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	return printProfile(stdout, c.out, res.Variants[0])
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
