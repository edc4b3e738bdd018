package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/judge"
	"dbbench/runners/judge/compare"
	"dbbench/runners/judge/revcost"
	"dbbench/runners/measure/revision"
	"dbbench/runners/measure/run"
	"dbbench/runners/present/report"
	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// abConfig is `dbbench ab A B`: two revisions of this suite, each built in a scratch
// directory, every variant of the preset served by both at once against one database
// and measured in one run, each variant at B paired with itself at A.
type abConfig struct {
	opts run.Options
	a, b string // the revisions as given
	gate bool
	tmp  string // where the builds go; "" is the system's temporary directory
}

// parseAB is `dbbench ab`: readAB, then its run.
var parseAB = actionOf(readAB)

// readAB is parseAB's reading of the command line, apart so that tests can see it.
func readAB(fs *flagSet, args []string) (abConfig, error) {
	var pf presetFlags
	pf.register(fs, "keep only variants whose key matches this regular expression (without rev=, it selects both sides)")
	margin := fs.Percent("margin", compare.DefaultMargin, percent, "the smallest change that matters, in percent: a figure is the same within ± this, and --fail-on regression fails past it")
	fs.Alias("threshold", "margin")
	failOn := fs.String("fail-on", "", oneOf("", "regression"), say("flag-ab-fail-on", map[string]any{"Status": exitGate}))
	budget := fs.Duration("budget", 0, above0, fmt.Sprintf("time for all the paired slices (default: the preset's); no comparison stops below %d pairs", stats.MinPairs))
	precision := precisionFlag(fs)
	profile := fs.Bool("profile", false, say("flag-ab-profile", nil))
	out := fs.String("out", "", anything, "run directory (default reports/runs/<stamp>-ab)")
	pos, err := fs.parseAmong(args)
	if err != nil {
		return abConfig{}, err
	}
	if len(pos) != 2 {
		return abConfig{}, fmt.Errorf("%w: ab: want two revisions, A and B (a commit, branch or tag, or %s for the working tree as it is), got %d", errUsage, revision.Worktree, len(pos))
	}
	sel, err := pf.load(fs, "")
	if err != nil {
		return abConfig{}, err
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join(sel.root, "reports", "runs", time.Now().UTC().Format("20060102-150405")+"-ab")
	}
	return abConfig{a: pos[0], b: pos[1], gate: *failOn == "regression", opts: run.Options{
		Selection: run.Selection{Root: sel.root, Matrix: sel.m, Preset: sel.preset, Variants: sel.pattern, DB: sel.db, DBs: sel.dbs},
		Pairing:   run.Pairing{Budget: *budget, Precision: *precision},
		Checks:    run.Checks{Profile: run.ProfilingOf(fs.given("profile"), *profile)},
		Shape:     run.Shape{KeepAlive: true, Seed: 1},
		Output:    run.Output{Out: dir, Command: fs.command(args)},
		Versus:    run.Versus{Margin: *margin},
	}}, nil
}

// revisions resolves A and B and checks that one database can serve both. What is
// wrong here is the command line's: exit status 2, before anything is built.
func (c abConfig) revisions(ctx context.Context) (*results.Rev, *results.Rev, error) {
	a, b, err := revision.Pair(ctx, c.opts.Root, c.a, c.b)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: ab: %v", errUsage, err)
	}
	if err := revision.SameDatabase(ctx, c.opts.Root, a, b); err != nil {
		return nil, nil, fmt.Errorf("%w: ab: %v", errUsage, err)
	}
	return a, b, nil
}

func (c abConfig) run(ctx context.Context, stdout, stderr io.Writer) error {
	a, b, err := c.revisions(ctx)
	if err != nil {
		return err
	}
	builds, err := revision.Prepare(ctx, c.opts.Root, c.tmp, a, b, stderr)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("ab %w while building: nothing was measured", run.ErrInterrupted)
		}
		return err
	}
	// Deferred, so an interrupt or a failed run removes the builds too; the run has
	// stopped every target by the time it returns.
	defer builds.Remove()
	c.opts.Revisions = []run.Revision{
		{Rev: a, Root: builds.A.Root, BinDir: builds.A.BinDir},
		{Rev: b, Root: builds.B.Root, BinDir: builds.B.BinDir},
	}
	fmt.Fprintf(stderr, "A = %s (%s), B = %s (%s); results go to %s\n", a.ID, a.Name, b.ID, b.Name, c.opts.Out)
	c.opts.Log, c.opts.DB.Log = stderr, stderr
	res, err := run.Run(ctx, c.opts)
	return c.finish(res, err, stdout, stderr)
}

// finish writes the report of whatever was measured, prints the answer, and returns
// the exit status's error: the run's failure, then the gate, then invalid variants.
func (c abConfig) finish(res *results.Run, err error, stdout, stderr io.Writer) error {
	dir := c.opts.Out
	measured := measuredReps(res)
	var judged *judge.Run // the run as its report judged it, for the terminal
	if measured > 0 {
		j, _, rerr := writeReport(dir)
		judged = j // nil only when the run could not be judged
		if rerr != nil {
			fmt.Fprintf(stderr, "report: %v\n", rerr)
		} else {
			fmt.Fprintf(stdout, "report:  %s\n         %s\n", filepath.Join(dir, "report.md"), filepath.Join(dir, "report.html"))
		}
	}
	if err != nil {
		kept := "nothing was measured"
		if measured > 0 {
			kept = fmt.Sprintf("the %d slices measured are kept in %s", measured, dir)
		}
		if errors.Is(err, run.ErrInterrupted) {
			return fmt.Errorf("ab %w; %s", err, kept)
		}
		return fmt.Errorf("ab failed: %w; %s", err, kept)
	}
	if judged == nil {
		if judged, err = judge.Of(res); err != nil {
			return err
		}
	}
	ans := judged.Revision
	printAnswer(stdout, judged)
	if regs := ans.Regressions(); c.gate && len(regs) > 0 {
		return fmt.Errorf("ab %w: %s: %s", errGate, units.Count(len(regs), "regression"), strings.Join(regs, "; "))
	}
	if len(ans.Unpaired) > 0 {
		return fmt.Errorf("%s not compared (all reasons in %s); first: %s",
			units.Count(len(ans.Unpaired), "variant"), filepath.Join(dir, "report.md"), ans.Unpaired[0])
	}
	return nil
}

// printAnswer is what a person reads at the end: the report's first answer, then per
// variant B ÷ A in each figure with its interval and a mark for its verdict, then
// what fails the gate.
func printAnswer(w io.Writer, j *judge.Run) {
	a := j.Revision
	if text, err := report.FirstAnswer(j); err == nil {
		fmt.Fprintf(w, "\n%s\n\n", text)
	}
	t := a.AB.Margin
	fmt.Fprintf(w, "B ÷ A, 95%% intervals; \"past\": the whole interval lies past ±%g%%. %s\n", 100*t, report.MarksLegendAt(t))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"variant"}
	for _, m := range revcost.Metrics {
		head = append(head, m.Short)
	}
	fmt.Fprintln(tw, strings.Join(append(head, "commands/req", "pairs"), "\t")+"\t")
	for _, v := range a.Variants {
		row := []string{matrix.ShortKey(revcost.Label(v.B))}
		for _, m := range revcost.Metrics {
			row = append(row, estimateText(v, m))
		}
		commands := "not captured"
		if v.Commands != nil {
			commands = v.Commands.Short()
		}
		pairs := 0
		if len(v.Figures) > 0 {
			pairs = v.Figures[0].N
		}
		fmt.Fprintln(tw, strings.Join(append(row, commands, fmt.Sprint(pairs)), "\t")+"\t")
	}
	tw.Flush()
	for _, l := range a.Regressions() {
		fmt.Fprintln(w, "regression: "+l)
	}
}

// estimateText is "+4.9% [+1.8%, +8.1%] ●", with "past" when its whole interval lies
// past the threshold and † when the comparison stopped before its target.
func estimateText(v revcost.Pair, m revcost.Metric) string {
	for _, e := range v.Figures {
		if e.Unit == m.Unit {
			mark := report.Mark(e.Verdict)
			if e.Beyond {
				mark += " past"
			}
			if !v.Reached {
				mark += " †"
			}
			return revcost.Change(e.Estimate) + " " + mark
		}
	}
	return "–"
}
