package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"dbbench/runners/report"
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
		if err := report.Write(dir); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\n%s\n", filepath.Join(dir, "report.md"), filepath.Join(dir, "report.html"))
		return nil
	}, nil
}
