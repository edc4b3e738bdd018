package profile

import (
	"bytes"
	"encoding/xml"
	"os"
	"testing"
)

// testdata holds real profiles taken on this project's targets against MariaDB (a few
// seconds under wrk for Go, written as collapsed stacks by WriteCollapsed; 400 requests
// through DbBench\App for PHP, Excimer's own output). They check the table against the
// frame names the libraries really have.
var realProfiles = []struct {
	file    string
	lang    Lang
	unit    string
	largest Component   // the heaviest component
	present []Component // with some weight
	absent  []Component // with none
}{
	{"go-orm-interpolate-persistent.cpu.collapsed", Go, "nanoseconds", Syscall,
		[]Component{HTTP, JSON, ORM, Pool, Driver, Runtime, DbBench}, []Component{Builder, Connect}},
	{"go-gorm-prepare-per-request.cpu.collapsed", Go, "nanoseconds", Connect,
		[]Component{HTTP, Builder, ORM, Pool, Driver, Syscall, Runtime}, nil},
	{"go-builder-prepare-persistent.alloc_space.collapsed", Go, "bytes", Builder,
		[]Component{HTTP, Pool, Driver, DbBench}, []Component{ORM, Connect}},
	{"php-orm-interpolate-per-request.excimer.collapsed", PHP, "samples", Connect,
		[]Component{Bootstrap, Builder, ORM, PDO}, nil},
	{"php-builder-interpolate-per-request.excimer.collapsed", PHP, "samples", Connect,
		[]Component{Bootstrap, Builder, DBLayer, PDO}, []Component{ORM}},
}

func readTestdata(t *testing.T, name, unit string) *Profile {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ReadCollapsed(f, unit)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRealProfilesFoldIntoTheExpectedComponents(t *testing.T) {
	for _, rp := range realProfiles {
		p := readTestdata(t, rp.file, rp.unit)
		f, err := Fold(p, rp.lang)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Check(0.01); err != nil {
			t.Errorf("%s: %v", rp.file, err)
		}
		for c, w := range f.Weights {
			if w > f.Weights[rp.largest] {
				t.Errorf("%s: %s (%.1f%%) outweighs %s (%.1f%%)", rp.file, c, 100*f.Share(c), rp.largest, 100*f.Share(rp.largest))
			}
		}
		for _, c := range rp.present {
			if f.Weights[c] == 0 {
				t.Errorf("%s: nothing in %s", rp.file, c)
			}
		}
		for _, c := range rp.absent {
			if f.Weights[c] != 0 {
				t.Errorf("%s: %.1f%% in %s, want none", rp.file, 100*f.Share(c), c)
			}
		}
	}
}

func TestRealProfilesRenderAndRoundTrip(t *testing.T) {
	for _, rp := range realProfiles {
		p := readTestdata(t, rp.file, rp.unit)
		var svg, col bytes.Buffer
		if err := WriteFlameGraph(&svg, p, FlameOptions{Title: rp.file, Lang: rp.lang}); err != nil {
			t.Fatal(err)
		}
		var doc svgDoc
		if err := xml.Unmarshal(svg.Bytes(), &doc); err != nil || len(frames(doc)) < 20 {
			t.Errorf("%s: flame graph not well-formed (%v) or nearly empty (%d frames)", rp.file, err, len(frames(doc)))
		}
		if err := WriteCollapsed(&col, p); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCollapsed(&col, p.Unit)
		if err != nil || !sameStacks(back.Stacks, p.Stacks) {
			t.Errorf("%s: collapsed round trip changed the profile (%v)", rp.file, err)
		}
	}
}
