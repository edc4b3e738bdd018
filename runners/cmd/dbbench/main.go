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
	"slices"
	"strings"
	"syscall"

	"dbbench/runners/measure/provider"
	"dbbench/runners/measure/run"
	"dbbench/runners/measure/secret"
)

// A command parses and checks its arguments on fs without doing any work, and returns
// the action that does it: every refusal of bad input comes before anything starts,
// and the tests feed every flag of every command without running one.
type command struct {
	name  string // as typed: "run", "sweep pool"
	about string
	parse func(fs *flagSet, args []string) (action, error)
}

type action func(ctx context.Context, stdout, stderr io.Writer) error

// actionOf makes a command's parse step of read, its reading of the command line into a
// config whose run is the action (run and ab read apart so that tests can see the config).
func actionOf[C interface {
	run(ctx context.Context, stdout, stderr io.Writer) error
}](read func(*flagSet, []string) (C, error)) func(*flagSet, []string) (action, error) {
	return func(fs *flagSet, args []string) (action, error) {
		c, err := read(fs, args)
		if err != nil {
			return nil, err
		}
		return c.run, nil
	}
}

var commands = []command{
	{"db up", "start (or attach to) a database, load the fixtures, wait until interrupted", parseDBUp},
	{"serve", "start one target for a variant, wait until interrupted", parseServe},
	{"run", "measure a preset's variants end to end, then write the report", parseRun},
	{"profile", "profile one variant on its own: CPU (and Go's allocations) by component, flame graph, pprof", parseProfile},
	{"report", "write report.md and report.html for a run directory", parseReport},
	{"compare", "did it get slower? two runs (or a saved baseline and a run): environments, yardstick, verdicts", parseCompare},
	{"ab", "did the upgrade cost anything? two revisions built and measured side by side in one run", parseAB},
	{"variants", "list the variants a preset runs", parseVariants},
	{"sweep pool", "pool-size sweep: capacity per pool size, and the smallest pool that holds the rate", parseSweepPool},
	{"sweep rtt", "network-distance sweep: prepare, prepared and interpolate as the database moves away", parseSweepRTT},
	{"soak", "the variants most at risk served at once for an hour: does anything grow?", parseSoak},
}

// usageWidth is the widest line of the usage's closing paragraph.
const usageWidth = 91

func usage() string {
	var b strings.Builder
	b.WriteString("usage: dbbench COMMAND [flags]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-11s%s\n", c.name, c.about)
	}
	exits := say("usage-exit", map[string]any{"Failed": exitFailed, "Usage": exitUsage, "Gate": exitGate,
		"Rising": exitRising, "Database": exitDatabase, "Interrupted": exitInterrupted})
	b.WriteString("\n" + wrap(exits, usageWidth) + "\n")
	return b.String()
}

// groupUsage lists the commands of a two-word group ("db", "sweep"); "" for a word
// that is no group.
func groupUsage(word string) string {
	var b strings.Builder
	var names []string
	for _, c := range commands {
		if first, _, two := strings.Cut(c.name, " "); two && first == word {
			fmt.Fprintf(&b, "  %-11s%s\n", c.name, c.about)
			names = append(names, "'dbbench "+c.name+" [flags]'")
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "usage: " + strings.Join(names, " or ") + "\n\ncommands:\n" + b.String() + "\nRun 'dbbench " + word + " COMMAND -h' for its flags.\n"
}

// errUsage marks errors caused by the command line: exit status 2 instead of 1.
var errUsage = errors.New("usage")

// errGate marks a comparison that `compare --fail-on regression` or `ab --fail-on
// regression` fails: exit status 3, so that a CI job tells a regression from a broken
// command line (2) or a failure (1).
var errGate = errors.New("--fail-on regression")

// errRising marks a soak in which nothing grows, but connections or prepared
// statements the database holds rise, unresolved at its duration: exit status 4, so
// that a short soak in CI does not pass a leak it could not yet tell from settling.
var errRising = errors.New("rising, unresolved")

// errCannotTell marks a comparison in which nothing regressed among the figures that
// could be judged, and some could not be (runners/judge/compare, CannotTell): exit status 4,
// the soak's "unresolved", so that a CI job tells "cannot compare" from "regressed".
var errCannotTell = errors.New("cannot tell")

// Exit statuses (README.md, "Exit status").
const (
	exitFailed      = 1
	exitUsage       = 2
	exitGate        = 3
	exitRising      = 4
	exitDatabase    = 5   // the database died or stopped answering (run.ErrDatabaseDied)
	exitInterrupted = 130 // 128 + SIGINT, as a shell reports an interrupted command
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := dispatch(ctx, os.Args[1:], os.Stdout, secret.Writer(os.Stderr))
	interrupted := ctx.Err() != nil
	stop()
	if err != nil {
		// Every error line goes through Scrub: no password ever reaches the terminal.
		fmt.Fprintln(os.Stderr, "dbbench: "+secret.Scrub(err.Error()))
	}
	os.Exit(exitStatus(err, interrupted))
}

// exitStatus tells apart what a script must: usage, a gate, an interrupt, a failure.
func exitStatus(err error, interrupted bool) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage), errors.Is(err, provider.ErrNotInstalled):
		return exitUsage
	case interrupted:
		return exitInterrupted
	case errors.Is(err, errGate):
		return exitGate
	case errors.Is(err, errRising), errors.Is(err, errCannotTell):
		return exitRising
	case errors.Is(err, run.ErrDatabaseDied):
		return exitDatabase
	}
	return exitFailed
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return fmt.Errorf("%w: no command given", errUsage)
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, usage())
		return nil
	}
	// "dbbench sweep -h": the group's own commands, each with what it does.
	if group := groupUsage(args[0]); group != "" && (len(args) == 1 || args[1] == "-h" || args[1] == "--help") {
		if len(args) == 1 {
			fmt.Fprint(stderr, group)
			return fmt.Errorf("%w: 'dbbench %s' takes one of the commands above", errUsage, args[0])
		}
		fmt.Fprint(stdout, group)
		return nil
	}
	c, rest, err := find(args)
	if err != nil {
		fmt.Fprint(stderr, usage())
		return err
	}
	fs := newFlagSet(c.name, stderr)
	fs.about = c.about
	act, err := c.parse(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	return act(ctx, stdout, stderr)
}

// find picks the command args name (one word, or two: "db up", "sweep pool").
func find(args []string) (command, []string, error) {
	for _, c := range commands {
		words := strings.Fields(c.name)
		if len(args) >= len(words) && slices.Equal(args[:len(words)], words) {
			return c, args[len(words):], nil
		}
	}
	switch args[0] {
	case "db":
		return command{}, nil, fmt.Errorf("%w: want 'dbbench db up'", errUsage)
	case "sweep":
		return command{}, nil, fmt.Errorf("%w: want 'dbbench sweep pool [flags]' or 'dbbench sweep rtt [flags]'", errUsage)
	}
	return command{}, nil, fmt.Errorf("%w: unknown command %q", errUsage, args[0])
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
