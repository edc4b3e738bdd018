//go:build leak

package main

import (
	"io"
	"log"
	"strings"
	"testing"
)

// plantLeak reads every plant into its own counter, and names what it refuses.
func TestPlantLeakReadsTheSpec(t *testing.T) {
	logger := log.New(io.Discard, "", 0)
	t.Setenv(leakVar, "stmt:500, fd:2,query:1,lostupdate:3,cpu:1700,layer:raw")
	s, err := plantLeak(nil, nil, "raw", logger)
	if err != nil {
		t.Fatal(err)
	}
	l, ok := s.(*leaky)
	if !ok {
		t.Fatalf("plantLeak gave %T, want *leaky", s)
	}
	if l.stmtEvery != 500 || l.fdEvery != 2 || l.queryEvery != 1 || l.lostEvery != 3 || l.cpuSteps != 1700 {
		t.Errorf("every: stmt %d, fd %d, query %d, lostupdate %d, cpu %d; want 500, 2, 1, 3, 1700", l.stmtEvery, l.fdEvery, l.queryEvery, l.lostEvery, l.cpuSteps)
	}
	if s, err := plantLeak(nil, nil, "gorm", logger); err != nil || s != nil {
		t.Errorf("another layer: got %v, %v; want the store unchanged (nil)", s, err)
	}
	for spec, want := range map[string]string{
		"stmt:0":  "want stmt:N, fd:N, query:N or lostupdate:N",
		"fd":      "want stmt:N, fd:N, query:N or lostupdate:N",
		"heap:-1": "heap:N bytes",
		"mem:10":  `unknown plant "mem"`,
	} {
		t.Setenv(leakVar, spec)
		if _, err := plantLeak(nil, nil, "raw", logger); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=%q: got %v, want an error with %q", leakVar, spec, err, want)
		}
	}
}

// heap:N keeps exactly N bytes a request, in whole chunks, the last one filling.
func TestKeepHoldsTheBytes(t *testing.T) {
	l := &leaky{}
	for range 3000 {
		l.keep(24)
	}
	var n int
	for i, c := range l.kept {
		n += len(c)
		if cap(c) != heapChunk || (i < len(l.kept)-1 && len(c) != heapChunk) {
			t.Errorf("chunk %d: len %d, cap %d; want full chunks of %d before the last", i, len(c), cap(c), heapChunk)
		}
	}
	if n != 3000*24 || len(l.kept) != 2 {
		t.Errorf("kept %d bytes in %d chunks, want %d in 2", n, len(l.kept), 3000*24)
	}
}

// The planted CPU is a chain whose result depends on every step, so the compiler keeps
// it (its time is measured by the runs that plant it, not here).
func TestSpinIsWork(t *testing.T) {
	if spin(7, 1000) == spin(7, 1001) {
		t.Errorf("one more step gives the same result: the loop may be optimised away")
	}
	if spin(7, 0) != 7|1<<40 {
		t.Errorf("no steps: %d, want the seed", spin(7, 0))
	}
}
