package profile

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"testing"

	gprof "github.com/google/pprof/profile"
)

const (
	knownAllocs = 64
	knownSize   = 64 << 10 // a large object: allocated at exactly this size
)

// allocKnown makes knownAllocs allocations of knownSize bytes and nothing else (dst is
// allocated by the caller), so its weight in an allocation profile is known exactly.
//
//go:noinline
func allocKnown(dst [][]byte) {
	for i := range dst {
		dst[i] = make([]byte, knownSize)
	}
}

// heapProfile returns the process's allocs profile as of a GC that just finished.
func heapProfile(t *testing.T, sampleType string) *Profile {
	t.Helper()
	runtime.GC() // publishes the allocations made so far
	var buf bytes.Buffer
	if err := pprof.Lookup("allocs").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	p, err := ReadPprof(&buf, sampleType)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// leafWeight sums the stacks whose frames, joined root first with ";", end with suffix.
func leafWeight(p *Profile, suffix string) int64 {
	var w int64
	for _, s := range p.Stacks {
		if strings.HasSuffix(strings.Join(s.Frames, ";"), suffix) {
			w += s.Weight
		}
	}
	return w
}

func TestReadPprofHeapProfileOfKnownAllocations(t *testing.T) {
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1 // record every allocation: the profile is exact
	defer func() { runtime.MemProfileRate = old }()

	// Root first: this test calls allocKnown.
	const leaf = ".TestReadPprofHeapProfileOfKnownAllocations;dbbench/runners/measure/profile.allocKnown"
	beforeSpace := leafWeight(heapProfile(t, AllocSpace), leaf)
	beforeObjects := leafWeight(heapProfile(t, AllocObjects), leaf)
	sink := make([][]byte, knownAllocs)
	// A collection started inside allocKnown's allocations would charge the runtime's
	// own small allocations (goroutines, buffers) to allocKnown's call site, the
	// profile trimming runtime frames: no collection until allocKnown returns.
	gc := debug.SetGCPercent(-1)
	allocKnown(sink)
	debug.SetGCPercent(gc)
	space := heapProfile(t, AllocSpace)
	objects := heapProfile(t, AllocObjects)
	runtime.KeepAlive(sink)

	if got := leafWeight(space, leaf) - beforeSpace; got != knownAllocs*knownSize {
		t.Errorf("alloc_space of allocKnown = %d bytes, want %d", got, knownAllocs*knownSize)
	}
	if got := leafWeight(objects, leaf) - beforeObjects; got != knownAllocs {
		t.Errorf("alloc_objects of allocKnown = %d, want %d", got, knownAllocs)
	}
	if space.Unit != "bytes" || objects.Unit != "count" {
		t.Errorf("units = %q, %q, want bytes, count", space.Unit, objects.Unit)
	}
}

// handMadeCPU is a CPU profile with an inlined call and a location without symbols.
func handMadeCPU(t *testing.T) []byte {
	t.Helper()
	main := &gprof.Function{ID: 1, Name: "main.main"}
	work := &gprof.Function{ID: 2, Name: "main.work"}
	inl := &gprof.Function{ID: 3, Name: "strconv.Itoa"}
	locMain := &gprof.Location{ID: 1, Address: 0x10, Line: []gprof.Line{{Function: main}}}
	// One location, two lines: the inlined callee first, as pprof stores them.
	locWork := &gprof.Location{ID: 2, Address: 0x20, Line: []gprof.Line{{Function: inl}, {Function: work}}}
	locBare := &gprof.Location{ID: 3, Address: 0xbeef}
	p := &gprof.Profile{
		SampleType: []*gprof.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &gprof.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10_000_000,
		Function:   []*gprof.Function{main, work, inl},
		Location:   []*gprof.Location{locMain, locWork, locBare},
		Sample: []*gprof.Sample{
			{Location: []*gprof.Location{locWork, locMain}, Value: []int64{3, 30_000_000}},
			{Location: []*gprof.Location{locBare, locMain}, Value: []int64{1, 10_000_000}},
			{Location: []*gprof.Location{locWork, locMain}, Value: []int64{2, 20_000_000}},
		},
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadPprofSelectsTheSampleTypeByName(t *testing.T) {
	data := handMadeCPU(t)
	p, err := ReadPprof(bytes.NewReader(data), CPU)
	if err != nil {
		t.Fatal(err)
	}
	want := []Stack{
		{Frames: []string{"main.main", "0xbeef"}, Weight: 10_000_000},
		{Frames: []string{"main.main", "main.work", "strconv.Itoa"}, Weight: 50_000_000},
	}
	if p.Unit != "nanoseconds" || !sameStacks(p.Stacks, want) {
		t.Errorf("cpu: got %s %v, want nanoseconds %v", p.Unit, p.Stacks, want)
	}
	samples, err := ReadPprof(bytes.NewReader(data), "samples")
	if err != nil {
		t.Fatal(err)
	}
	if samples.Total() != 6 || samples.Unit != "count" {
		t.Errorf("samples: total %d %s, want 6 count", samples.Total(), samples.Unit)
	}
}

func TestReadPprofErrors(t *testing.T) {
	_, err := ReadPprof(bytes.NewReader(handMadeCPU(t)), AllocSpace)
	if err == nil || !strings.Contains(err.Error(), "samples, cpu") {
		t.Errorf("unknown sample type: err = %v, want one listing samples, cpu", err)
	}
	if _, err := ReadPprof(strings.NewReader("not a profile"), CPU); err == nil {
		t.Error("garbage: want an error")
	}
}

func sameStacks(a, b []Stack) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Weight != b[i].Weight || strings.Join(a[i].Frames, ";") != strings.Join(b[i].Frames, ";") {
			return false
		}
	}
	return true
}

// A profile written as pprof reads back with the same stacks and weights (frames root
// first, the leaf where pprof expects it), and pprof's own parser accepts it.
func TestWritePprofRoundTrip(t *testing.T) {
	in := &Profile{Unit: "nanoseconds", Stacks: []Stack{
		{Frames: []string{"{main}", "DbBench\\App::handle", "PDOStatement::execute"}, Weight: 3e6},
		{Frames: []string{"{main}", "DbBench\\App::handle"}, Weight: 1e6},
		{Frames: []string{"{main}", "Illuminate\\Database\\Eloquent\\Builder::first", "PDOStatement::execute"}, Weight: 5e6},
	}}
	var buf bytes.Buffer
	if err := WritePprof(&buf, in, "cpu"); err != nil {
		t.Fatal(err)
	}
	raw, err := gprof.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if leaf := raw.Sample[0].Location[0].Line[0].Function.Name; leaf != "PDOStatement::execute" {
		t.Errorf("first location of the first sample is %q, want the leaf", leaf)
	}
	out, err := ReadPprof(&buf, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	in.Merge()
	if out.Unit != in.Unit || out.Total() != in.Total() || len(out.Stacks) != len(in.Stacks) {
		t.Fatalf("read back %+v, want %+v", out, in)
	}
	for i := range in.Stacks {
		if strings.Join(out.Stacks[i].Frames, ";") != strings.Join(in.Stacks[i].Frames, ";") || out.Stacks[i].Weight != in.Stacks[i].Weight {
			t.Errorf("stack %d: %v, want %v", i, out.Stacks[i], in.Stacks[i])
		}
	}
}
