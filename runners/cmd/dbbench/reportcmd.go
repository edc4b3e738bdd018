package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"dbbench/runners/judge"
	"dbbench/runners/present/report"
)

// parseReport is `dbbench report DIR`: it writes report.md and report.html into the run
// directory DIR.
func parseReport(fs *flagSet, args []string) (action, error) {
	fs.args = "RUN_DIR"
	if err := fs.parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() != 1 {
		return nil, fmt.Errorf("%w: report: want one run directory, got %d arguments", errUsage, fs.NArg())
	}
	dir := fs.Arg(0)
	return func(_ context.Context, stdout, _ io.Writer) error {
		if _, _, err := writeReport(dir); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n%s\n", filepath.Join(dir, "report.md"), filepath.Join(dir, "report.html"))
		return nil
	}, nil
}

// writeReport judges the run in dir (package judge computes every figure once) and
// writes the judgement (judgement.json) and its report there; it returns the run judged and the comparisons as the report
// words them, so that the terminal prints the same figures.
func writeReport(dir string) (*judge.Run, []report.Comparison, error) {
	j, err := judge.File(dir)
	if err != nil {
		return nil, nil, err
	}
	cs, err := report.WriteComparisons(dir, j)
	if err != nil {
		return j, cs, err
	}
	return j, cs, j.Write(dir) // after the page: a judgement that cannot be written loses no page
}
