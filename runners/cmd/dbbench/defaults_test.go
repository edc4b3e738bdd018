package main

import (
	"errors"
	"flag"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"dbbench/runners/measure/run"
)

// TestRunHelpPrintsTheDefaultsThatRun parses `dbbench run` with no flags, resolves its
// options as the run does (run.Options.Defaults), and checks every default --help
// prints against the value used: a flag's own default, "(default X)" in its text, or
// "the preset's" (", else X" where the preset has none).
func TestRunHelpPrintsTheDefaultsThatRun(t *testing.T) {
	t.Setenv(dsnEnv, "")
	help := newFlagSet("run", io.Discard)
	if _, err := readRun(help, []string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("run -h: %v, want flag.ErrHelp", err)
	}
	c, err := readRun(newFlagSet("run", io.Discard), nil)
	if err != nil {
		t.Fatal(err)
	}
	o := c.opts
	o.Defaults()
	p := o.Preset
	pct := func(f float64) string { return strconv.FormatFloat(100*f, 'g', -1, 64) }
	used := map[string]string{
		"preset": p.Name, "duration": o.Duration.String(), "warmup": o.Warmup.String(),
		"lead-in": o.LeadIn.String(), "reps": strconv.Itoa(o.Reps), "budget": o.Budget.String(),
		"precision": pct(o.Precision), "turn": o.Turn.String(), "min-pairs": strconv.Itoa(o.MinPairs),
		"max-pairs": strconv.Itoa(o.MaxPairs), "profile-time": o.ProfileTime.String(),
		"connections": strconv.Itoa(o.Connections), "rate": strconv.FormatFloat(o.Rate, 'g', -1, 64),
		"keepalive": strconv.FormatBool(o.KeepAlive), "seed": strconv.FormatUint(o.Seed, 10),
		"profile": strconv.FormatBool(o.Profile == run.ProfileOn),
	}
	fromPreset := map[string]string{
		"duration": p.Duration.String(), "warmup": p.Warmup.String(), "reps": strconv.Itoa(p.Reps),
		"budget": p.Budget.String(), "precision": pct(p.Precision), "connections": strconv.Itoa(p.Connections),
	}
	for name, got := range used {
		fl := help.Lookup(name)
		if fl == nil {
			t.Errorf("run has no --%s", name)
			continue
		}
		want, ok := printedDefault(fl)
		if !ok {
			t.Errorf("run --%s: its help prints no default (usage %q)", name, fl.Usage)
			continue
		}
		if rest, isPreset := strings.CutPrefix(want, "the preset's"); isPreset {
			want = fromPreset[name]
			if else_, hasElse := strings.CutPrefix(rest, ", else "); hasElse && (want == "0" || want == "0s") {
				want = else_
			}
		}
		if got != want {
			t.Errorf("run --%s: --help prints the default %q, the run uses %s", name, want, got)
		}
	}
}

// printedDefault is the default PrintDefaults shows for fl: its value when not zero,
// else what its usage says in "(default X)" or "(default: X)".
func printedDefault(fl *flag.Flag) (string, bool) {
	switch fl.DefValue {
	case "0", "0s", "", "false":
	default:
		return fl.DefValue, true
	}
	_, after, ok := strings.Cut(fl.Usage, "(default")
	if !ok {
		return fl.DefValue, fl.DefValue == "false" || strings.Contains(fl.Usage, "(0, the default")
	}
	after = strings.TrimPrefix(strings.TrimPrefix(after, ":"), " ")
	end := strings.IndexAny(after, ");")
	if end < 0 {
		return "", false
	}
	v := after[:end]
	if !strings.HasPrefix(v, "the preset's") {
		v, _, _ = strings.Cut(v, ",") // "6, the fewest with a 95% interval"
	}
	if d, err := time.ParseDuration(v); err == nil {
		v = d.String() // "150ms" as time.Duration prints it
	}
	return v, true
}
