package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"dbbench/runners/measure/secret"
)

// A flagSet is one command's flags. Each numeric flag carries the rule its values must
// keep: its help states the rule, and parse refuses a given value that breaks it with
// one line that names the flag and what it allows. A flag left out keeps its default,
// which may stand for "the preset's" (0) and is never checked against the rule.
type flagSet struct {
	*flag.FlagSet
	cmd   string
	about string    // what the command does, for -h
	args  string    // its arguments after the flags, for -h: "RUN_DIR"
	out   io.Writer // the flag package writes nothing itself: parse says what is wrong
	rules map[string]rule
}

// rule is what a flag's values must be.
type rule struct {
	allows string             // for people: "above 0"
	ok     func(string) bool  // the value as typed
	values []string           // a choice's values, for the tests that feed every flag
	num    func(float64) bool // for numbers: the check, on the parsed value
}

func numeric(allows string, ok func(float64) bool) rule { return rule{allows: allows, num: ok} }

var (
	above0   = numeric("above 0", func(v float64) bool { return v > 0 })
	atLeast0 = numeric("0 or more", func(v float64) bool { return v >= 0 })
	// percent is a share in percent, strictly between 0 and 100 (a precision, a noise).
	percent = numeric("a percentage above 0 and below 100", func(v float64) bool { return v > 0 && v < 100 })
	// fraction is a share of one, above 0 and at most 1.
	fraction = numeric("above 0 and at most 1", func(v float64) bool { return v > 0 && v <= 1 })
	anything = rule{allows: "any value"}
)

func atLeast(n float64) rule {
	return numeric(fmt.Sprintf("%g or more", n), func(v float64) bool { return v >= n })
}

// atLeastTime is for a duration flag: d or more.
func atLeastTime(d time.Duration) rule {
	return numeric(d.String()+" or more", func(v float64) bool { return v >= d.Seconds() })
}

// listOf allows a comma-separated list of the given values, each at most once.
func listOf(values ...string) rule {
	return rule{allows: "a comma-separated list of " + strings.Join(values, ", "), values: values,
		ok: func(s string) bool {
			parts := strings.Split(s, ",")
			for i := range parts {
				parts[i] = strings.TrimSpace(parts[i])
			}
			for i, p := range parts {
				if !slices.Contains(values, p) || slices.Index(parts, p) != i {
					return false
				}
			}
			return true
		}}
}

// oneOf allows exactly the given values ("" too when empty is among them).
func oneOf(values ...string) rule {
	var shown []string
	for _, v := range values {
		if v != "" {
			shown = append(shown, v)
		}
	}
	return rule{allows: "one of " + strings.Join(shown, ", "), values: values,
		ok: func(s string) bool { return slices.Contains(values, s) }}
}

func newFlagSet(cmd string, stderr io.Writer) *flagSet {
	fs := flag.NewFlagSet("dbbench "+cmd, flag.ContinueOnError)
	// A mistyped flag gets its one line (parse's error), not the whole list; -h prints it.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, cmd: cmd, out: stderr, rules: map[string]rule{}}
}

func (f *flagSet) add(name string, r rule, usage string) string {
	f.rules[name] = r
	if r.allows == anything.allows {
		return usage
	}
	return usage + " [" + r.allows + "]"
}

// Int, Float, Duration and String define a flag with its rule.
func (f *flagSet) Int(name string, def int, r rule, usage string) *int {
	return f.FlagSet.Int(name, def, f.add(name, r, usage))
}

func (f *flagSet) Uint64(name string, def uint64, usage string) *uint64 {
	return f.FlagSet.Uint64(name, def, f.add(name, anything, usage))
}

func (f *flagSet) Float(name string, def float64, r rule, usage string) *float64 {
	return f.FlagSet.Float64(name, def, f.add(name, r, usage))
}

func (f *flagSet) Duration(name string, def time.Duration, r rule, usage string) *time.Duration {
	p := new(time.Duration)
	*p = def
	f.Var((*durationValue)(p), name, f.add(name, r, usage))
	return p
}

func (f *flagSet) String(name, def string, r rule, usage string) *string {
	return f.FlagSet.String(name, def, f.add(name, r, usage))
}

func (f *flagSet) Bool(name string, def bool, usage string) *bool {
	return f.FlagSet.Bool(name, def, f.add(name, anything, usage))
}

// Alias lets old, a flag's earlier name, set flag name: names users type are kept
// when a flag is renamed. The alias shares the flag's value and rule.
func (f *flagSet) Alias(old, name string) {
	fl := f.Lookup(name)
	f.rules[old] = f.rules[name]
	f.Var(fl.Value, old, "the earlier name of --"+name)
}

// Percent defines a flag typed and shown in percent whose value is a fraction (def too):
// the user's interface is percent (here and in matrix.yaml); inside dbbench a share is
// a fraction everywhere, and this is the one conversion. r applies to the percent typed.
func (f *flagSet) Percent(name string, def float64, r rule, usage string) *float64 {
	p := new(float64)
	*p = def
	f.Var(&percentValue{frac: p}, name, f.add(name, r, usage))
	return p
}

// percentValue holds a fraction; it reads it in percent and prints it as typed (the
// default in percent), so that the rule and the error messages see the user's number.
type percentValue struct {
	frac  *float64
	typed string
}

func (v *percentValue) String() string {
	switch {
	case v.typed != "":
		return v.typed
	case v.frac == nil: // the flag package's zero value, to tell a default apart
		return "0"
	}
	return strconv.FormatFloat(100**v.frac, 'g', -1, 64)
}

func (v *percentValue) Set(s string) error {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return errors.New("value out of range") // the flag package's words for a float
		}
		return errors.New("parse error")
	}
	*v.frac, v.typed = x/100, s
	return nil
}

// durationValue is a time.Duration flag whose parse error says what is wanted.
type durationValue time.Duration

func (d *durationValue) String() string { return time.Duration(*d).String() }

func (d *durationValue) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("want a duration like 500ms, 90s, 5m or 1h")
	}
	*d = durationValue(v)
	return nil
}

// parse parses args and checks every flag given against its rule. Errors are usage
// errors (exit status 2) that name the flag.
func (f *flagSet) parse(args []string) error {
	if err := f.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			f.help()
			return err
		}
		return fmt.Errorf("%w: %s: %v (dbbench %s -h lists the flags)", errUsage, f.cmd, err, f.cmd)
	}
	var bad error
	f.Visit(func(fl *flag.Flag) {
		if bad != nil {
			return
		}
		if err := f.check(fl); err != nil {
			bad = err
		}
	})
	return bad
}

func (f *flagSet) check(fl *flag.Flag) error {
	r := f.rules[fl.Name]
	s := fl.Value.String()
	ok := true
	switch {
	case r.ok != nil:
		ok = r.ok(s)
	case r.num != nil:
		ok = r.num(number(fl.Value))
	}
	if !ok {
		return fmt.Errorf("%w: %s: --%s %s: must be %s", errUsage, f.cmd, fl.Name, quoteEmpty(s), r.allows)
	}
	return nil
}

// number is a numeric flag's value as a float: seconds for a duration.
func number(v flag.Value) float64 {
	if d, ok := v.(*durationValue); ok {
		return time.Duration(*d).Seconds()
	}
	x, _ := strconv.ParseFloat(v.String(), 64)
	return x
}

func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// parseAmong parses args whose positional arguments may stand before, between or after
// the flags (dbbench ab A B --fail-on regression), and returns them in order. After
// "--" everything is positional.
func (f *flagSet) parseAmong(args []string) ([]string, error) {
	var pos []string
	for {
		if err := f.parse(args); err != nil {
			return nil, err
		}
		rest := f.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// given says whether the flag was on the command line.
func (f *flagSet) given(name string) bool {
	found := false
	f.Visit(func(fl *flag.Flag) { found = found || fl.Name == name })
	return found
}

// named makes err, from parsing the value of flag, a usage error that names it.
func (f *flagSet) named(flag string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %s: --%s: %v", errUsage, f.cmd, flag, err)
}

// command is the command line as typed, for a report to say what made it; a DSN's
// password is masked (secret.Scrub), as everywhere else, and an absolute path is
// written relative to the repository (or the working directory), or as "…/" and its
// last element, so that what is committed names no machine's directories.
func (f *flagSet) command(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		flagName, value, isFlag := strings.Cut(a, "=")
		if isFlag && strings.HasPrefix(flagName, "-") {
			out[i] = flagName + "=" + portablePath(value)
		} else {
			out[i] = portablePath(a)
		}
	}
	return secret.Scrub("dbbench " + f.cmd + " " + strings.Join(out, " "))
}

// portablePath is p relative to the repository or the working directory when it is an
// absolute path below either, else "…/" and its last element; any other p as is.
func portablePath(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	var bases []string
	if root, err := repoRoot(); err == nil {
		bases = append(bases, root)
	}
	if wd, err := os.Getwd(); err == nil {
		bases = append(bases, wd)
	}
	for _, b := range bases {
		if rel, err := filepath.Rel(b, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return rel
		}
	}
	return "…/" + filepath.Base(p)
}

// noArgs refuses positional arguments.
func (f *flagSet) noArgs() error {
	if f.NArg() > 0 {
		return fmt.Errorf("%w: %s: unexpected argument %q", errUsage, f.cmd, f.Arg(0))
	}
	return nil
}

// help prints the command's synopsis, what it does, and its flags.
func (f *flagSet) help() {
	fmt.Fprintf(f.out, "usage: dbbench %s [flags]", f.cmd)
	if f.args != "" {
		fmt.Fprintf(f.out, " %s", f.args)
	}
	fmt.Fprintln(f.out)
	if f.about != "" {
		fmt.Fprintf(f.out, "\n%s\n", f.about)
	}
	n := 0
	f.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		fmt.Fprintln(f.out, "\nIt takes no flags.")
		return
	}
	fmt.Fprintln(f.out, "\nflags:")
	f.SetOutput(f.out)
	f.PrintDefaults()
}
