package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"dbbench/runners/report"
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
