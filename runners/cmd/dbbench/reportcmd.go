package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"dbbench/runners/report"
	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// reportCmd is `dbbench report DIR`: it writes report.md and report.html into the run
// directory DIR.
func reportCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("report", stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: report: want one run directory, got %d arguments", errUsage, fs.NArg())
	}
	dir := fs.Arg(0)
	if err := report.Write(dir); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\n%s\n", filepath.Join(dir, "report.md"), filepath.Join(dir, "report.html"))
	return nil
}

// compareCmd is `dbbench compare (--baseline NAME | OLD_DIR) NEW_DIR`.
func compareCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("compare", stderr)
	baseline := fs.String("baseline", "", "compare with the baseline saved under this name")
	noise := fs.Float64("noise", 100*stats.DefaultNoise, "noise threshold in percent: smaller significant changes are 'within noise'")
	baselines := fs.String("baselines", "", "baseline directory (default reports/baselines)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	want := 2
	if *baseline != "" {
		want = 1
	}
	if fs.NArg() != want {
		return fmt.Errorf("%w: compare: want (--baseline NAME | OLD_DIR) NEW_DIR, got %d directories", errUsage, fs.NArg())
	}
	if *noise < 0 || *noise >= 100 {
		return fmt.Errorf("%w: compare: --noise %v: want a percentage in [0, 100)", errUsage, *noise)
	}
	var old *results.Run
	var err error
	if *baseline != "" {
		dir := *baselines
		if dir == "" {
			root, err := repoRoot()
			if err != nil {
				return err
			}
			dir = filepath.Join(root, "reports", "baselines")
		}
		old, err = report.LoadBaseline(dir, *baseline)
	} else {
		old, err = results.Read(filepath.Join(fs.Arg(0), "results.json"))
	}
	if err != nil {
		return err
	}
	new, err := results.Read(filepath.Join(fs.Arg(fs.NArg()-1), "results.json"))
	if err != nil {
		return err
	}
	c, err := report.Compare(old, new, *noise/100)
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, c.String())
	return err
}
