package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// positional are the arguments a command needs besides its flags, valid ones.
var positional = map[string][]string{
	"serve":   {"lang=go/layer=hello/stmt=none/conn=none/pool=8"},
	"profile": {"lang=go/layer=raw/stmt=interpolate/conn=persistent/pool=8"},
	"report":  {"somedir"},
	"compare": {"old", "new"},
	"ab":      {"HEAD", "HEAD"},
}

// The bad values every flag of every command is fed: empty, zero, negative, huge and
// malformed.
var badValues = []string{"", "0", "-1", "-5s", "1e300", "99999999999999999999", "100000h", "x", "12%"}

// Every flag of every command, fed each bad value, either takes it (when its rule and
// its type allow it) or refuses it with a usage error (exit status 2) that names the
// flag; a value the rule in its help rules out is always refused. Nothing runs: only
// the parse step is called.
func TestEveryFlagRefusesWhatItsHelpRulesOut(t *testing.T) {
	t.Setenv(dsnEnv, "")
	rows := 0
	for _, c := range commands {
		fs := newFlagSet(c.name, io.Discard)
		if _, err := c.parse(fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("%s -h: %v, want flag.ErrHelp", c.name, err)
		}
		fs.VisitAll(func(fl *flag.Flag) {
			r, ok := fs.rules[fl.Name]
			if !ok {
				t.Errorf("%s --%s has no rule", c.name, fl.Name)
				return
			}
			for _, v := range append(badValues, r.values...) {
				rows++
				err := parseOnly(c, fl.Name, v)
				parses := typeParses(fl, v)
				allowed := parses && ruleAllows(r, fl, v)
				named := err != nil && errors.Is(err, errUsage) &&
					(strings.Contains(err.Error(), "-"+fl.Name+" ") || strings.Contains(err.Error(), "-"+fl.Name+":"))
				// A value its rule allows may still be refused, for a companion flag it
				// needs or a free-form value (a path, a pattern) that is wrong: by name.
				if err != nil && !named || !allowed && err == nil {
					t.Errorf("%s --%s=%q (%s): %v; want it taken or a usage error naming --%s", c.name, fl.Name, v, r.allows, err, fl.Name)
				}
			}
		})
	}
	t.Logf("%d flag × value rows over %d commands", rows, len(commands))
}

// The defaults the help prints are the values the flags hold: every default keeps its
// own rule.
func TestEveryDefaultKeepsItsRule(t *testing.T) {
	for _, c := range commands {
		fs := newFlagSet(c.name, io.Discard)
		c.parse(fs, []string{"-h"})
		fs.VisitAll(func(fl *flag.Flag) {
			if err := fs.check(fl); err != nil && fl.DefValue != "0" && fl.DefValue != "0s" && fl.DefValue != "" {
				t.Errorf("%s --%s: its default %q breaks its own rule: %v", c.name, fl.Name, fl.DefValue, err)
			}
		})
	}
}

func parseOnly(c command, name, value string) error {
	args := append([]string{"--" + name + "=" + value}, positional[c.name]...)
	_, err := c.parse(newFlagSet(c.name, io.Discard), args)
	return err
}

// typeParses says whether value is of the flag's type.
func typeParses(fl *flag.Flag, value string) bool {
	switch fl.Value.(type) {
	case *durationValue:
		_, err := time.ParseDuration(value)
		return err == nil
	}
	switch fmt.Sprintf("%T", fl.Value) {
	case "*flag.intValue":
		_, err := strconv.ParseInt(value, 0, strconv.IntSize)
		return err == nil
	case "*flag.uint64Value":
		_, err := strconv.ParseUint(value, 0, 64)
		return err == nil
	case "*flag.float64Value", "*main.percentValue":
		_, err := strconv.ParseFloat(value, 64)
		return err == nil
	case "*flag.boolValue":
		_, err := strconv.ParseBool(value)
		return err == nil
	}
	return true // a string
}

// ruleAllows applies the flag's rule to value, which is of its type.
func ruleAllows(r rule, fl *flag.Flag, value string) bool {
	switch {
	case r.ok != nil:
		return r.ok(value)
	case r.num != nil:
		if _, ok := fl.Value.(*durationValue); ok {
			d, _ := time.ParseDuration(value)
			return r.num(d.Seconds())
		}
		x, _ := strconv.ParseFloat(value, 64)
		return r.num(x)
	}
	return true
}

// The command line a report shows names no machine's directories: a path inside the
// repository or the working directory is relative, any other absolute path is its
// last element.
func TestCommandNamesNoMachinePath(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	f := newFlagSet("run", io.Discard)
	got := f.command([]string{"--out", filepath.Join(root, "reports", "sample", "quick"), "--dsn-file=/tmp/x/dsn", "--preset", "quick"})
	if want := "dbbench run --out reports/sample/quick --dsn-file=…/dsn --preset quick"; got != want {
		t.Errorf("command = %q, want %q", got, want)
	}
}
