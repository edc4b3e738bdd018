package benchfile

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/perf/benchfmt"
)

// Key names one sample: the repetitions of one benchmark in one unit.
type Key struct {
	Name string // full benchmark name, BenchmarkSingleRow/lang=…/pool=64
	Unit string
}

// File is a bench.txt read back.
type File struct {
	Config  []Config          // the file config in force at the first result, in file order
	Names   []string          // benchmark names in order of first appearance
	Units   []string          // units in order of first appearance
	Samples map[Key][]float64 // one value per repetition, in file order
	Iters   map[string][]int  // requests per repetition, by benchmark name
}

// Sample returns the values of name in unit, nil if the file has none.
func (f *File) Sample(name, unit string) []float64 {
	if f == nil { // no file read: no samples
		return nil
	}
	return f.Samples[Key{name, unit}]
}

// ReadFile reads a bench.txt.
func ReadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading benchmark results: %w", err)
	}
	defer fh.Close()
	return Read(fh, path)
}

// Read reads results in the Go benchmark format; name labels errors. Lines that are
// neither config, results nor unit metadata (PASS, ok …) are skipped as benchstat skips
// them; a malformed benchmark line is an error naming its line. Units are as benchfmt
// tidies them (ns/op is read as sec/op), as benchstat shows them. A file without results
// gives an empty File.
func Read(r io.Reader, name string) (*File, error) {
	f := &File{Samples: make(map[Key][]float64), Iters: make(map[string][]int)}
	seenUnit := make(map[string]bool)
	rd := benchfmt.NewReader(r, name)
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, fmt.Errorf("reading benchmark results: %w", rec)
		case *benchfmt.Result:
			if f.Config == nil {
				f.Config = fileConfig(rec)
			}
			bench := "Benchmark" + rec.Name.String()
			if _, ok := f.Iters[bench]; !ok {
				f.Names = append(f.Names, bench)
			}
			f.Iters[bench] = append(f.Iters[bench], rec.Iters)
			for _, v := range rec.Values {
				if !seenUnit[v.Unit] {
					seenUnit[v.Unit] = true
					f.Units = append(f.Units, v.Unit)
				}
				k := Key{bench, v.Unit}
				f.Samples[k] = append(f.Samples[k], v.Value)
			}
		}
	}
	if err := rd.Err(); err != nil {
		return nil, fmt.Errorf("reading benchmark results: %w", err)
	}
	return f, nil
}

func fileConfig(rec *benchfmt.Result) []Config {
	cfg := []Config{}
	for _, c := range rec.Config {
		if c.File {
			cfg = append(cfg, Config{c.Key, string(c.Value)})
		}
	}
	return cfg
}
