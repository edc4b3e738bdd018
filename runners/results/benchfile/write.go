// Package benchfile writes and reads a run's bench.txt: the Go benchmark format
// (golang.org/x/perf/benchfmt), one line per repetition of a variant, so that
// `benchstat bench.txt` and `benchstat -col /stmt bench.txt` read it, and so that
// `dbbench report` and `dbbench compare` can work from the file alone.
//
// A file looks like this:
//
//	goos: linux
//	goarch: amd64
//	cpu: AMD EPYC 7B13
//	dbbench-commit: 4375d5c
//
//	BenchmarkSingleRow/lang=go/layer=raw/stmt=prepare/conn=persistent/pool=64 200000 20012 req/s 0.0031 p99-sec/op 3 roundtrips/op
//	Unit req/s better=higher
//	Unit p99-sec/op better=lower
//	Unit roundtrips/op better=lower
//	Unit roundtrips/op assume=exact
//	BenchmarkSingleRow/lang=go/layer=raw/stmt=prepare/conn=persistent/pool=64 200000 19876 req/s 0.0032 p99-sec/op 3 roundtrips/op
//
// Each unit's metadata follows the first line that uses it (benchfmt emits the config
// block with the first result, and metadata may stand anywhere): the direction from
// units.Better, and assume=exact for units.Exact units, so benchstat treats round-trip
// counts as exact values, as package stats does.
package benchfile

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"

	"dbbench/runners/units"
)

// Config is one `key: value` line at the top of the file (versions, commit, host).
type Config struct {
	Key, Value string
}

// Value is one measurement of a repetition, in a base unit such as req/s or p99-sec/op.
type Value struct {
	Value float64
	Unit  string
}

// Repetition is one line of the file.
type Repetition struct {
	Name   string // the variant's benchmark name, matrix.Variant.Name()
	Iters  int    // requests sent in the repetition
	Values []Value
}

// Writer writes a bench.txt. Each Write reaches the underlying io.Writer at once, so an
// interrupted run keeps every repetition written so far.
type Writer struct {
	out       *benchfmt.Writer
	config    []benchfmt.Config
	described map[string]bool // units whose metadata lines are written
}

// NewWriter returns a Writer whose file starts with config, in that order (see
// Configs). Nothing is written until the first repetition.
func NewWriter(w io.Writer, config []Config) (*Writer, error) {
	seen := make(map[string]bool)
	var cfg []benchfmt.Config
	for _, c := range config {
		if err := checkConfig(c); err != nil {
			return nil, err
		}
		if seen[c.Key] {
			return nil, fmt.Errorf("config key %q given twice", c.Key)
		}
		seen[c.Key] = true
		cfg = append(cfg, benchfmt.Config{Key: c.Key, Value: []byte(c.Value), File: true})
	}
	return &Writer{out: benchfmt.NewWriter(w), config: cfg, described: make(map[string]bool)}, nil
}

// Write appends one repetition, and the metadata of units not seen before.
func (w *Writer) Write(rep Repetition) error {
	if err := checkRepetition(rep); err != nil {
		return err
	}
	res := &benchfmt.Result{
		Config: w.config,
		Name:   benchfmt.Name(strings.TrimPrefix(rep.Name, "Benchmark")), // the Writer adds it back
		Iters:  rep.Iters,
	}
	for _, v := range rep.Values {
		res.Values = append(res.Values, benchfmt.Value{Value: v.Value, Unit: v.Unit})
	}
	if err := w.out.Write(res); err != nil {
		return fmt.Errorf("writing %s: %w", rep.Name, err)
	}
	for _, v := range rep.Values {
		if w.described[v.Unit] {
			continue
		}
		if err := w.describe(v.Unit); err != nil {
			return err
		}
		w.described[v.Unit] = true
	}
	return nil
}

func (w *Writer) describe(unit string) error {
	var meta []*benchfmt.UnitMetadata
	if dir := units.Better(unit); dir != units.Unknown {
		meta = append(meta, &benchfmt.UnitMetadata{
			UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: unit, Key: "better"},
			OrigUnit:        unit,
			Value:           dir.String(),
		})
	}
	if units.Exact(unit) {
		meta = append(meta, &benchfmt.UnitMetadata{
			UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: unit, Key: "assume"},
			OrigUnit:        unit,
			Value:           "exact",
		})
	}
	for _, m := range meta {
		if err := w.out.Write(m); err != nil {
			return fmt.Errorf("writing metadata of unit %s: %w", unit, err)
		}
	}
	return nil
}

// checkConfig enforces the format's rule for keys (a lower-case first letter, no spaces,
// no upper case) so the line is read back as config and not silently ignored.
func checkConfig(c Config) error {
	if c.Key == "" {
		return errors.New("config key is empty")
	}
	for i, r := range c.Key {
		if (i == 0 && !unicode.IsLower(r)) || unicode.IsSpace(r) || unicode.IsUpper(r) || r == ':' {
			return fmt.Errorf("config key %q: want a lower-case first letter and no spaces, upper case or colons", c.Key)
		}
	}
	if strings.TrimSpace(c.Value) == "" {
		return fmt.Errorf("config %s: empty value (the format reads it as deleting the key)", c.Key)
	}
	if strings.ContainsAny(c.Value, "\r\n") {
		return fmt.Errorf("config %s: value %q spans lines", c.Key, c.Value)
	}
	return nil
}

func checkRepetition(rep Repetition) error {
	if !strings.HasPrefix(rep.Name, "Benchmark") || len(rep.Name) == len("Benchmark") {
		return fmt.Errorf("benchmark name %q: want Benchmark<Name>, e.g. a matrix.Variant's Name()", rep.Name)
	}
	if strings.IndexFunc(rep.Name, unicode.IsSpace) >= 0 {
		return fmt.Errorf("benchmark name %q contains a space", rep.Name)
	}
	if rep.Iters < 1 {
		return fmt.Errorf("%s: %d requests, want at least 1", rep.Name, rep.Iters)
	}
	if len(rep.Values) == 0 {
		return fmt.Errorf("%s: no values", rep.Name)
	}
	units := make(map[string]bool)
	for _, v := range rep.Values {
		switch {
		case v.Unit == "" || strings.IndexFunc(v.Unit, unicode.IsSpace) >= 0:
			return fmt.Errorf("%s: unit %q: want one word such as req/s", rep.Name, v.Unit)
		case units[v.Unit]:
			return fmt.Errorf("%s: unit %s given twice", rep.Name, v.Unit)
		case math.IsNaN(v.Value) || math.IsInf(v.Value, 0):
			return fmt.Errorf("%s: %s is %v, want a finite number", rep.Name, v.Unit, v.Value)
		}
		// Readers rescale ns and MB to sec and B; refuse them so the file reads back as written.
		if _, tidy := benchunit.Tidy(1, v.Unit); tidy != v.Unit {
			return fmt.Errorf("%s: unit %s would be read back as %s: write base units (sec, B)", rep.Name, v.Unit, tidy)
		}
		units[v.Unit] = true
	}
	return nil
}

// Configs orders an environment (such as environment.Collect's) as config lines:
// goos, goarch and cpu first, as `go test` prints them, then the other keys sorted.
func Configs(env map[string]string) []Config {
	first := []string{"goos", "goarch", "cpu"}
	var cfg []Config
	for _, k := range first {
		if v, ok := env[k]; ok {
			cfg = append(cfg, Config{k, v})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		if !slices.Contains(first, k) {
			cfg = append(cfg, Config{k, env[k]})
		}
	}
	return cfg
}
