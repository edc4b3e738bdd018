package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"dbbench/runners/judge/compare"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// compareConfig is `dbbench compare [--margin PCT] [--format text|json] [--fail-on
// regression] (--baseline NAME | OLD_DIR) NEW_DIR`. Without --fail-on its exit status
// says only whether the comparison could be made; with --fail-on regression it is 3
// when a regression survives normalisation or a deterministic count changed (which
// absolute figures count: runners/judge/compare/README.md, "Output"), else 4 when some
// figures cannot be judged ("cannot tell").
type compareConfig struct {
	baseline, baselines, oldDir, newDir string
	margin                              float64 // a fraction
	json, gate                          bool
}

func parseCompare(fs *flagSet, args []string) (action, error) {
	baseline := fs.String("baseline", "", anything, "compare with the baseline saved under this name (dbbench run --save-baseline NAME)")
	margin := fs.Percent("margin", compare.DefaultMargin, numeric("a percentage from 0 to below 100", func(v float64) bool { return v >= 0 && v < 100 }), "the smallest change that matters (the noise threshold), in percent: a change counts when its whole 95% interval lies beyond it")
	fs.Alias("noise", "margin")
	baselines := fs.String("baselines", "", anything, "baseline directory (default reports/baselines)")
	format := fs.String("format", "text", oneOf("text", "json"), "text (the summary first, then every variant and metric) or json (the same data, for tools)")
	failOn := fs.String("fail-on", "", oneOf("", "regression"), say("flag-compare-fail-on", map[string]any{"Status": exitGate, "CannotTell": exitRising}))
	if err := fs.parse(args); err != nil {
		return nil, err
	}
	want := 2
	if *baseline != "" {
		want = 1
	}
	if fs.NArg() != want {
		return nil, fmt.Errorf("%w: compare: want (--baseline NAME | OLD_DIR) NEW_DIR, got %d directories", errUsage, fs.NArg())
	}
	c := compareConfig{baseline: *baseline, baselines: *baselines, oldDir: fs.Arg(0), newDir: fs.Arg(fs.NArg() - 1),
		margin: *margin, json: *format == "json", gate: *failOn == "regression"}
	return c.run, nil
}

func (c compareConfig) run(_ context.Context, stdout, _ io.Writer) error {
	old, oldLabel, err := oldRun(c.baseline, c.baselines, c.oldDir)
	if err != nil {
		return err
	}
	new, err := results.Read(filepath.Join(c.newDir, "results.json"))
	if err != nil {
		return err
	}
	res, err := compare.Compare(old, new, compare.Options{Margin: c.margin, OldLabel: oldLabel, NewLabel: c.newDir})
	if err != nil {
		return err
	}
	if c.json {
		err = res.WriteJSON(stdout)
	} else {
		err = res.WriteText(stdout)
	}
	if err != nil {
		return err
	}
	if c.gate && res.Gate.Fails {
		return fmt.Errorf("compare %w: %d %s that survive normalisation, %d deterministic %s changed",
			errGate, res.Gate.Regressions, units.Plural(res.Gate.Regressions, "regression", "regressions"),
			res.Gate.CountChanges, units.Plural(res.Gate.CountChanges, "count", "counts"))
	}
	if c.gate && res.Gate.CannotTell {
		return fmt.Errorf("compare %w: nothing regressed among the figures that could be judged, and some could not be, for %d %s (the gate's lines)",
			errCannotTell, len(res.CannotTell), units.Plural(len(res.CannotTell), "reason", "reasons"))
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
