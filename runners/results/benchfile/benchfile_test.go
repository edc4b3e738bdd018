package benchfile

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const (
	rawPrepare = "BenchmarkSingleRow/lang=go/layer=raw/stmt=prepare/conn=persistent/pool=64"
	phpHello   = "BenchmarkSingleRow/lang=php/layer=hello/stmt=none/conn=none/pool=8"
)

func TestWriteLayout(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, []Config{{"goos", "linux"}, {"goarch", "amd64"}, {"commit", "4375d5c"}})
	if err != nil {
		t.Fatal(err)
	}
	reps := []Repetition{
		{rawPrepare, 1000, []Value{{20000, "req/s"}, {0.0025, "p99-sec/op"}, {3, "roundtrips/op"}}},
		{phpHello, 2000, []Value{{4600.5, "req/s"}, {1.5e-05, "app-cpu-sec/op"}, {7, "widgets"}}},
	}
	for _, r := range reps {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	// Config first, then results; each unit described once, after the first line using
	// it; no direction for a unit that has none.
	want := `goos: linux
goarch: amd64
commit: 4375d5c

BenchmarkSingleRow/lang=go/layer=raw/stmt=prepare/conn=persistent/pool=64 1000 20000 req/s 0.0025 p99-sec/op 3 roundtrips/op
Unit req/s better=higher
Unit p99-sec/op better=lower
Unit roundtrips/op better=lower
Unit roundtrips/op assume=exact
BenchmarkSingleRow/lang=php/layer=hello/stmt=none/conn=none/pool=8 2000 4600.5 req/s 1.5e-05 app-cpu-sec/op 7 widgets
Unit app-cpu-sec/op better=lower
`
	if got := buf.String(); got != want {
		t.Errorf("file:\n%s\nwant:\n%s", got, want)
	}
}

func TestWriteReachesTheFileAtOnce(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Fatalf("NewWriter wrote %q before any repetition", buf.String())
	}
	if err := w.Write(Repetition{rawPrepare, 10, []Value{{1, "req/s"}}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), rawPrepare+" 10 1 req/s\n") {
		t.Errorf("after one Write the output is %q: want the repetition's line", buf.String())
	}
}

func TestRoundTrip(t *testing.T) {
	config := []Config{{"goos", "linux"}, {"goarch", "amd64"}, {"cpu", "AMD EPYC 7B13"}, {"mariadb", "10.11.19-MariaDB-0+deb12u1"}}
	// Values whose decimal forms are long or exponential must come back bit for bit.
	reps := []Repetition{
		{rawPrepare, 123456, []Value{{12345.678901234567, "req/s"}, {0.1 + 0.2, "p99-sec/op"}, {3, "roundtrips/op"}}},
		{phpHello, 9, []Value{{4.9e-324, "req/s"}, {1e21, "p99-sec/op"}}},
		{rawPrepare, 123457, []Value{{12001, "req/s"}, {2.5e-05, "p99-sec/op"}, {3, "roundtrips/op"}}},
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, config)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reps {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "bench.txt")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Config, config) {
		t.Errorf("config %q, want %q", f.Config, config)
	}
	if want := []string{rawPrepare, phpHello}; !reflect.DeepEqual(f.Names, want) {
		t.Errorf("names %q, want %q", f.Names, want)
	}
	if want := []string{"req/s", "p99-sec/op", "roundtrips/op"}; !reflect.DeepEqual(f.Units, want) {
		t.Errorf("units %q, want %q", f.Units, want)
	}
	wantSamples := map[Key][]float64{
		{rawPrepare, "req/s"}:         {12345.678901234567, 12001},
		{rawPrepare, "p99-sec/op"}:    {0.1 + 0.2, 2.5e-05},
		{rawPrepare, "roundtrips/op"}: {3, 3},
		{phpHello, "req/s"}:           {4.9e-324},
		{phpHello, "p99-sec/op"}:      {1e21},
	}
	if !reflect.DeepEqual(f.Samples, wantSamples) {
		t.Errorf("samples %v, want %v", f.Samples, wantSamples)
	}
	if got := f.Sample(phpHello, "roundtrips/op"); got != nil {
		t.Errorf("Sample of a unit the benchmark lacks = %v, want nil", got)
	}
	if want := map[string][]int{rawPrepare: {123456, 123457}, phpHello: {9}}; !reflect.DeepEqual(f.Iters, want) {
		t.Errorf("iters %v, want %v", f.Iters, want)
	}
}

func TestNewWriterRejectsBadConfig(t *testing.T) {
	for _, tc := range []struct {
		config []Config
		want   string
	}{
		{[]Config{{"", "x"}}, "config key is empty"},
		{[]Config{{"Goos", "linux"}}, `config key "Goos"`},
		{[]Config{{"go os", "linux"}}, `config key "go os"`},
		{[]Config{{"goVersion", "1.26"}}, `config key "goVersion"`},
		{[]Config{{"a:b", "c"}}, `config key "a:b"`},
		{[]Config{{"commit", " "}}, "config commit: empty value"},
		{[]Config{{"note", "two\nlines"}}, "spans lines"},
		{[]Config{{"goos", "linux"}, {"goos", "darwin"}}, `config key "goos" given twice`},
	} {
		_, err := NewWriter(&bytes.Buffer{}, tc.config)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewWriter(%q): err = %v, want it to mention %q", tc.config, err, tc.want)
		}
	}
}

func TestWriteRejectsBadRepetition(t *testing.T) {
	ok := []Value{{1, "req/s"}}
	for _, tc := range []struct {
		rep  Repetition
		want string
	}{
		{Repetition{"SingleRow/lang=go", 1, ok}, "want Benchmark<Name>"},
		{Repetition{"Benchmark", 1, ok}, "want Benchmark<Name>"},
		{Repetition{"BenchmarkSingle Row", 1, ok}, "contains a space"},
		{Repetition{rawPrepare, 0, ok}, "0 requests"},
		{Repetition{rawPrepare, 1, nil}, "no values"},
		{Repetition{rawPrepare, 1, []Value{{1, ""}}}, `unit ""`},
		{Repetition{rawPrepare, 1, []Value{{1, "req /s"}}}, `unit "req /s"`},
		{Repetition{rawPrepare, 1, []Value{{1, "req/s"}, {2, "req/s"}}}, "unit req/s given twice"},
		{Repetition{rawPrepare, 1, []Value{{math.NaN(), "req/s"}}}, "req/s is NaN"},
		{Repetition{rawPrepare, 1, []Value{{math.Inf(1), "sec/op"}}}, "sec/op is +Inf"},
		{Repetition{rawPrepare, 1, []Value{{1500, "ns/op"}}}, "ns/op would be read back as sec/op"},
		{Repetition{rawPrepare, 1, []Value{{2, "MB/s"}}}, "MB/s would be read back as B/s"},
	} {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = w.Write(tc.rep)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Write(%+v): err = %v, want it to mention %q", tc.rep, err, tc.want)
		}
		if buf.Len() != 0 {
			t.Errorf("Write(%+v) wrote %q despite the error", tc.rep, buf.String())
		}
	}
}

func TestReadGoTestOutput(t *testing.T) {
	in := "goos: linux\ngoarch: amd64\npkg: example\n" +
		"BenchmarkFoo-2   \t    1000\t      1234 ns/op\t      16 B/op\n" +
		"PASS\nok  \texample\t1.2s\n"
	f, err := Read(strings.NewReader(in), "go-test.txt")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Config{{"goos", "linux"}, {"goarch", "amd64"}, {"pkg", "example"}}; !reflect.DeepEqual(f.Config, want) {
		t.Errorf("config %q, want %q", f.Config, want)
	}
	// ns/op is tidied to sec/op, as benchstat shows it.
	if got := f.Sample("BenchmarkFoo-2", "sec/op"); len(got) != 1 || math.Abs(got[0]-1.234e-6) > 1e-18 {
		t.Errorf("sec/op sample %v, want [1.234e-06]", got)
	}
	if want := []string{"sec/op", "B/op"}; !reflect.DeepEqual(f.Units, want) {
		t.Errorf("units %q, want %q", f.Units, want)
	}
}

func TestReadEmpty(t *testing.T) {
	f, err := Read(strings.NewReader("goos: linux\n"), "empty.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Names) != 0 || len(f.Samples) != 0 {
		t.Errorf("got %+v, want no results", f)
	}
}

func TestReadRejectsMalformedLine(t *testing.T) {
	in := "goos: linux\n" + rawPrepare + " 10 fast req/s\n"
	_, err := Read(strings.NewReader(in), "bench.txt")
	if err == nil || !strings.Contains(err.Error(), "bench.txt:2: parsing measurement") {
		t.Errorf("err = %v, want one naming bench.txt:2 and the bad measurement", err)
	}
}

func TestReadFileMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "bench.txt")
	_, err := ReadFile(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want one naming %s", err, path)
	}
}

func TestConfigs(t *testing.T) {
	env := map[string]string{"php": "8.2.36", "cpu": "AMD EPYC 7B13", "goarch": "amd64", "goos": "linux", "dbbench-commit": "4375d5c"}
	want := []Config{{"goos", "linux"}, {"goarch", "amd64"}, {"cpu", "AMD EPYC 7B13"}, {"dbbench-commit", "4375d5c"}, {"php", "8.2.36"}}
	if got := Configs(env); !reflect.DeepEqual(got, want) {
		t.Errorf("Configs() = %q, want %q", got, want)
	}
	if got := Configs(map[string]string{"php": "8.2.36"}); !reflect.DeepEqual(got, []Config{{"php", "8.2.36"}}) {
		t.Errorf("Configs without host keys = %q", got)
	}
}
