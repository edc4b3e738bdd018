package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"dbbench/runners/compare"
	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// compareCmd is `dbbench compare [--noise PCT] [--format text|json] [--fail-on
// regression] (--baseline NAME | OLD_DIR) NEW_DIR`. Without --fail-on its exit status
// says only whether the comparison could be made; with --fail-on regression it is 3
// when a regression survives normalisation or a deterministic count changed.
func compareCmd(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("compare", stderr)
	baseline := fs.String("baseline", "", "compare with the baseline saved under this name (dbbench run --save-baseline NAME)")
	noise := fs.Float64("noise", 100*stats.DefaultNoise, "noise threshold in percent: a change counts when its whole 95% interval lies beyond it")
	baselines := fs.String("baselines", "", "baseline directory (default reports/baselines)")
	format := fs.String("format", "text", "text (the summary first, then every variant and metric) or json (the same data, for tools)")
	failOn := fs.String("fail-on", "", "regression: exit with status 3 when a regression survives normalisation or a deterministic count changed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	want := 2
	if *baseline != "" {
		want = 1
	}
	switch {
	case fs.NArg() != want:
		return fmt.Errorf("%w: compare: want (--baseline NAME | OLD_DIR) NEW_DIR, got %d directories", errUsage, fs.NArg())
	case !(*noise >= 0 && *noise < 100):
		return fmt.Errorf("%w: compare: --noise %v: want a percentage in [0, 100)", errUsage, *noise)
	case *format != "text" && *format != "json":
		return fmt.Errorf("%w: compare: --format %q: want text or json", errUsage, *format)
	case *failOn != "" && *failOn != "regression":
		return fmt.Errorf("%w: compare: --fail-on %q: want regression", errUsage, *failOn)
	}
	old, oldLabel, err := oldRun(*baseline, *baselines, fs.Arg(0))
	if err != nil {
		return err
	}
	newDir := fs.Arg(fs.NArg() - 1)
	new, err := results.Read(filepath.Join(newDir, "results.json"))
	if err != nil {
		return err
	}
	res, err := compare.Compare(old, new, compare.Options{Noise: *noise / 100, OldLabel: oldLabel, NewLabel: newDir})
	if err != nil {
		return err
	}
	if *format == "json" {
		err = res.WriteJSON(stdout)
	} else {
		err = res.WriteText(stdout)
	}
	if err != nil {
		return err
	}
	if *failOn == "regression" && res.Gate.Fails {
		return fmt.Errorf("%w: %d %s that survive normalisation, %d deterministic %s changed",
			errGate, res.Gate.Regressions, plural(res.Gate.Regressions, "regression", "regressions"),
			res.Gate.CountChanges, plural(res.Gate.CountChanges, "count", "counts"))
	}
	return nil
}

// oldRun reads the baseline name from dir (default reports/baselines), or the run in
// oldDir, and returns it with the label the output names it by.
func oldRun(name, dir, oldDir string) (*results.Run, string, error) {
	if name == "" {
		r, err := results.Read(filepath.Join(oldDir, "results.json"))
		return r, oldDir, err
	}
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			return nil, "", err
		}
		dir = filepath.Join(root, "reports", "baselines")
	}
	r, err := compare.LoadBaseline(dir, name)
	return r, "baseline " + name, err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
