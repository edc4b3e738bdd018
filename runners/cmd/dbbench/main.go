// Command dbbench provisions a database, starts targets, drives load, counts round
// trips and writes reports. `dbbench help` lists the subcommands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"dbbench/runners/secret"
)

const usage = `usage: dbbench COMMAND [flags]

commands:
  db up      start (or attach to) a database, load the fixtures, wait until interrupted
  serve      start one target for a variant, wait until interrupted
  run        measure a preset's variants end to end, then write the report
  profile    profile one variant on its own: CPU (and Go's allocations) by component, flame graph, pprof
  report     write report.md and report.html for a run directory
  compare    did it get slower? two runs (or a saved baseline and a run): environments, yardstick, verdicts
  variants   list the variants a preset runs
  sweep      pool|rtt: pool-size or network-distance sweep, with its own report
  soak       the variants most at risk served at once for an hour: does anything grow?

Run 'dbbench COMMAND -h' for a command's flags.
`

// errUsage marks errors caused by the command line: exit status 2 instead of 1.
var errUsage = errors.New("usage")

// errGate marks a comparison that `compare --fail-on regression` fails: exit status 3,
// so that a CI job tells a regression from a broken command line (2) or a failure (1).
var errGate = errors.New("compare --fail-on regression")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := dispatch(ctx, os.Args[1:], os.Stdout, secret.Writer(os.Stderr))
	stop()
	if err != nil {
		// Every error line goes through Scrub: no password ever reaches the terminal.
		fmt.Fprintln(os.Stderr, "dbbench: "+secret.Scrub(err.Error()))
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		if errors.Is(err, errGate) {
			os.Exit(3)
		}
		os.Exit(1)
	}
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: no command given", errUsage)
	}
	switch args[0] {
	case "db":
		if len(args) < 2 || args[1] != "up" {
			return fmt.Errorf("%w: want 'dbbench db up'", errUsage)
		}
		return dbUp(ctx, args[2:], stdout, stderr)
	case "serve":
		return serve(ctx, args[1:], stdout, stderr)
	case "run":
		return runCmd(ctx, args[1:], stdout, stderr)
	case "report":
		return reportCmd(ctx, args[1:], stdout, stderr)
	case "compare":
		return compareCmd(ctx, args[1:], stdout, stderr)
	case "variants":
		return listVariants(args[1:], stdout, stderr)
	case "sweep":
		return sweepCmd(ctx, args[1:], stdout, stderr)
	case "soak":
		return soakCmd(ctx, args[1:], stdout, stderr)
	case "profile":
		return profileCmd(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
}

// newFlags returns a flag set that reports errors instead of exiting, so every bad flag
// ends in one clear line and exit status 2.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("dbbench "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %s: %v", errUsage, fs.Name(), err)
	}
	return nil
}

// repoRoot finds the repository: $DBBENCH_ROOT, else the nearest directory above the
// working directory or the binary that holds runners/matrix.yaml.
func repoRoot() (string, error) {
	if r := os.Getenv("DBBENCH_ROOT"); r != "" {
		return r, nil
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, dir := range starts {
		for d := dir; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "runners", "matrix.yaml")); err == nil {
				return d, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", errors.New("cannot find the dbbench repository (runners/matrix.yaml): run from inside it or set DBBENCH_ROOT")
}
