package profile

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

func TestReadCollapsedExcimerOutput(t *testing.T) {
	// As Excimer writes it: lines start with ";" (an unnamed outermost frame), the same
	// stack may come twice; plus a blank line and a CRLF line ending.
	in := ";/app/index.php;DbBench\\App::handle 3\n" +
		";/app/index.php;{closure:/app/x.php(12)};DbBench\\Layer\\Raw::user 5\r\n" +
		"\n" +
		";/app/index.php;DbBench\\App::handle 4\n" +
		"; 2\n"
	p, err := ReadCollapsed(strings.NewReader(in), "samples")
	if err != nil {
		t.Fatal(err)
	}
	want := []Stack{
		{Frames: []string{"/app/index.php", "DbBench\\App::handle"}, Weight: 7},
		{Frames: []string{"/app/index.php", "{closure:/app/x.php(12)}", "DbBench\\Layer\\Raw::user"}, Weight: 5},
		{Frames: []string{NoFrame}, Weight: 2},
	}
	if !sameStacks(p.Stacks, want) || p.Unit != "samples" || p.Total() != 14 {
		t.Errorf("got %v (%s, total %d), want %v", p.Stacks, p.Unit, p.Total(), want)
	}
}

func TestReadCollapsedRejectsBadLines(t *testing.T) {
	for _, in := range []string{
		"a;b\n",
		"a;b 1.5\n",
		"a;b -3\n",
		"a;b 12x\n",
		"a;b 99999999999999999999\n",
	} {
		_, err := ReadCollapsed(strings.NewReader("ok;fine 1\n"+in), "samples")
		if err == nil || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%q: err = %v, want one naming line 2", in, err)
		}
	}
}

func TestCollapsedRoundTrip(t *testing.T) {
	p := &Profile{Unit: "nanoseconds", Stacks: []Stack{
		{Frames: []string{"main.main", "pkg.F[go.shape.struct { A int }]"}, Weight: 10},
		{Frames: []string{"main.main"}, Weight: 4},
		{Frames: []string{"main.main", "pkg.F[go.shape.struct { A int }]"}, Weight: 1},
		{Frames: []string{"main.main", "pkg.G"}, Weight: 0},
		{Frames: []string{"Illuminate\\Database\\Connection::select", "{closure:/usr/share/php/x.php(9)}"}, Weight: 3},
	}}
	var buf bytes.Buffer
	if err := WriteCollapsed(&buf, p); err != nil {
		t.Fatal(err)
	}
	want := "Illuminate\\Database\\Connection::select;{closure:/usr/share/php/x.php(9)} 3\n" +
		"main.main 4\n" +
		"main.main;pkg.F[go.shape.struct { A int }] 11\n"
	if buf.String() != want {
		t.Errorf("written:\n%s\nwant:\n%s", buf.String(), want)
	}
	back, err := ReadCollapsed(&buf, p.Unit)
	if err != nil {
		t.Fatal(err)
	}
	p.Merge()
	if !sameStacks(back.Stacks, p.Stacks) {
		t.Errorf("read back %v, want %v", back.Stacks, p.Stacks)
	}
}

func TestWriteCollapsedKeepsLinesIntact(t *testing.T) {
	p := &Profile{Stacks: []Stack{{Frames: []string{"a", "f[go.shape.struct { A int; B int }]", "x\ny"}, Weight: 2}}}
	var buf bytes.Buffer
	if err := WriteCollapsed(&buf, p); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "a;f[go.shape.struct { A int, B int }];x y 2\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCollapsedRoundTripOfARealHeapProfile(t *testing.T) {
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()
	allocKnown(make([][]byte, 4))
	p := heapProfile(t, AllocSpace)
	if len(p.Stacks) == 0 {
		t.Fatal("empty heap profile")
	}
	var buf bytes.Buffer
	if err := WriteCollapsed(&buf, p); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCollapsed(&buf, p.Unit)
	if err != nil {
		t.Fatal(err)
	}
	if !sameStacks(back.Stacks, p.Stacks) {
		t.Errorf("round trip changed the profile: %d stacks (total %d) became %d (total %d)",
			len(p.Stacks), p.Total(), len(back.Stacks), back.Total())
	}
}
