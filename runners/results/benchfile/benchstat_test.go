package benchfile

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"dbbench/runners/stats"
)

// buildBenchstat builds the real benchstat at the golang.org/x/perf version go.mod pins.
func buildBenchstat(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "benchstat")
	out, err := exec.Command("go", "build", "-o", bin, "golang.org/x/perf/cmd/benchstat").CombinedOutput()
	if err != nil {
		t.Fatalf("building benchstat: %v\n%s", err, out)
	}
	return bin
}

func benchstat(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("benchstat %q: %v\n%s%s", args, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// table returns the lines of the benchstat table whose header names unit.
func table(t *testing.T, out, unit string) []string {
	t.Helper()
	for _, block := range strings.Split(out, "\n\n") {
		lines := strings.Split(block, "\n")
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), "│") && strings.Contains(l, " "+unit+" ") {
				return lines[i:]
			}
		}
	}
	t.Fatalf("no %s table in benchstat output:\n%s", unit, out)
	return nil
}

// row returns the line of rows that starts with name.
func row(t *testing.T, rows []string, name string) string {
	t.Helper()
	for _, l := range rows {
		if strings.HasPrefix(l, name+" ") {
			return l
		}
	}
	t.Fatalf("no row %s in:\n%s", name, strings.Join(rows, "\n"))
	return ""
}

// TestBenchstatReadsOurFile checks that the real benchstat reads what Writer writes, and
// prints the same centers, intervals, deltas and p-values as package stats computes.
func TestBenchstatReadsOurFile(t *testing.T) {
	bin := buildBenchstat(t)

	const (
		prepare     = "BenchmarkSingleRow/lang=go/layer=raw/stmt=prepare/conn=persistent/pool=64"
		interpolate = "BenchmarkSingleRow/lang=go/layer=raw/stmt=interpolate/conn=persistent/pool=64"
	)
	samples := map[string]map[string][]float64{
		prepare: {
			"req/s":         {12740, 13000, 13130, 12870, 13260, 12935},
			"db-cpu-sec/op": {15e-6, 17e-6, 19e-6, 21e-6, 23e-6, 25e-6},
			"roundtrips/op": {3, 3, 3, 3, 3, 3},
		},
		interpolate: {
			"req/s":         {21210, 20580, 21420, 20790, 21000, 21105},
			"db-cpu-sec/op": {16e-6, 18e-6, 20e-6, 22e-6, 24e-6, 26e-6},
			"roundtrips/op": {1, 1, 1, 1, 1, 1},
		},
	}
	units := []string{"req/s", "db-cpu-sec/op", "roundtrips/op"}

	path := filepath.Join(t.TempDir(), "bench.txt")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWriter(fh, Configs(map[string]string{"goos": "linux", "goarch": "amd64", "commit": "4375d5c"}))
	if err != nil {
		t.Fatal(err)
	}
	for rep := range 6 { // interleaved, as the runner measures
		for _, name := range []string{prepare, interpolate} {
			r := Repetition{Name: name, Iters: 100000}
			for _, u := range units {
				r.Values = append(r.Values, Value{samples[name][u][rep], u})
			}
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}

	// One column: every variant and unit shows up with a median ± interval.
	out := benchstat(t, bin, path)
	if !strings.Contains(out, "commit: 4375d5c") {
		t.Errorf("benchstat did not print the config:\n%s", out)
	}
	for _, u := range units {
		rows := table(t, out, u)
		for _, name := range []string{prepare, interpolate} {
			if l := row(t, rows, strings.TrimPrefix(name, "Benchmark")); !strings.Contains(l, " ± ") {
				t.Errorf("%s %s: row %q has no interval", name, u, l)
			}
		}
	}

	// -col /stmt: prepare is the baseline, interpolate compared with it. Each column holds
	// one cell, so benchstat scales it as Summary.String does.
	out = benchstat(t, bin, "-col", "/stmt", path)
	for _, u := range units {
		old, new := samples[prepare][u], samples[interpolate][u]
		cmp, err := stats.Compare(old, new, u)
		if err != nil {
			t.Fatal(err)
		}
		l := row(t, table(t, out, u), "SingleRow/lang=go/layer=raw/conn=persistent/pool=64")
		want := []string{cmp.Old.String(), cmp.New.String(), cmp.Delta}
		if stats.Exact(u) {
			want = append(want, "(n=6)") // assume=exact: no test, so no p
		} else {
			want = append(want, fmt.Sprintf("(p=%.3f n=6)", cmp.P))
		}
		rest := l
		for _, cell := range want {
			i := strings.Index(rest, cell)
			if i < 0 {
				t.Errorf("%s: row %q lacks %q (in order %q)", u, l, cell, want)
				break
			}
			rest = rest[i+len(cell):]
		}
	}
	// The fixtures cover both outcomes: a significant shift and a `~`.
	if c, _ := stats.Compare(samples[prepare]["req/s"], samples[interpolate]["req/s"], "req/s"); !c.Significant {
		t.Errorf("req/s fixture should differ significantly: %+v", c)
	}
	if c, _ := stats.Compare(samples[prepare]["db-cpu-sec/op"], samples[interpolate]["db-cpu-sec/op"], "db-cpu-sec/op"); c.Delta != "~" {
		t.Errorf("db-cpu-sec/op fixture should be ~: %+v", c)
	}
}
