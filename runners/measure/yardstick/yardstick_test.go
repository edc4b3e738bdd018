package yardstick

import (
	"errors"
	"math"
	"strings"
	"testing"

	"dbbench/runners/results"
)

// The work is the same every time: the same sorted middle, the same hash, and a chase
// that is one cycle through every slot (Sattolo), so a trial never shortcuts.
func TestWorkIsFixed(t *testing.T) {
	prepare.Do(setup)
	a, b, c := sortRound(&prepared), hashRound(prepared.bytes), chaseRound(prepared.next)
	if a2, b2, c2 := sortRound(&prepared), hashRound(prepared.bytes), chaseRound(prepared.next); a != a2 || b != b2 || c != c2 {
		t.Fatalf("two rounds differ: %d %d %d, then %d %d %d", a, b, c, a2, b2, c2)
	}
	steps, i := 0, prepared.next[0]
	for steps = 1; i != 0 && steps <= chaseLen; steps++ {
		i = prepared.next[i]
	}
	if steps != chaseLen {
		t.Fatalf("the chase returns to 0 after %d steps, want one cycle of %d", steps, chaseLen)
	}
	if c != 0 {
		t.Errorf("a full chase from 0 ends at %d, want 0", c)
	}
}

func TestReadAndTake(t *testing.T) {
	trials := Read(3)
	if len(trials) != 3 {
		t.Fatalf("Read(3) gave %d trials", len(trials))
	}
	for _, s := range trials {
		if !(s > 0) {
			t.Errorf("trial of %v s, want > 0", s)
		}
	}
	r := Take("start", 2)
	if r.Phase != "start" || len(r.Trials) != 2 || len(r.Kernel) != 2 || r.At.IsZero() {
		t.Errorf("Take: %+v", r)
	}
	for _, s := range r.Kernel {
		if !(s > 0) {
			t.Errorf("kernel trial of %v s, want > 0", s)
		}
	}
	y := New()
	y.Readings = append(y.Readings, r)
	if s, err := Summary(y); err != nil || s.N != 2 || !(s.Center > 0) {
		t.Errorf("Summary: %+v, %v", s, err)
	}
}

func TestRatio(t *testing.T) {
	reading := func(phase string, xs ...float64) *results.Reading {
		return &results.Reading{Phase: phase, Trials: xs}
	}
	old := &results.Yardstick{Work: Description, Readings: []*results.Reading{
		reading("start", 0.050, 0.051, 0.049, 0.050, 0.052), reading("end", 0.051, 0.050, 0.050, 0.049, 0.050),
	}}
	slower := &results.Yardstick{Work: Description}
	for _, r := range old.Readings {
		s := &results.Reading{Phase: r.Phase}
		for _, x := range r.Trials {
			s.Trials = append(s.Trials, x/0.6)
		}
		slower.Readings = append(slower.Readings, s)
	}
	e, err := Ratio(old, slower)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e.Ratio-0.6) > 1e-9 || e.Lo > 0.6 || e.Hi < 0.6 || e.Old != 10 || e.New != 10 {
		t.Errorf("machine at 0.6 of the speed: %v", e)
	}
	if _, err := Ratio(nil, slower); !errors.Is(err, ErrMissing) || !strings.Contains(err.Error(), "old run") {
		t.Errorf("no old yardstick: err = %v", err)
	}
	other := &results.Yardstick{Work: "something else", Readings: slower.Readings}
	if _, err := Ratio(old, other); err == nil || !strings.Contains(err.Error(), "different work") {
		t.Errorf("different work: err = %v", err)
	}
}

// The kernel's part is compared like the fixed work, and only between runs that timed
// the same kernel work; a run without kernel trials is ErrMissing, as runs made before
// it existed are.
func TestKernelRatio(t *testing.T) {
	old := &results.Yardstick{Work: Description, KernelWork: KernelDescription, Readings: []*results.Reading{
		{Phase: "start", Trials: []float64{0.05, 0.05, 0.05}, Kernel: []float64{0.040, 0.041, 0.039, 0.040, 0.042}},
	}}
	slower := &results.Yardstick{Work: Description, KernelWork: KernelDescription, Readings: []*results.Reading{
		{Phase: "start", Trials: []float64{0.05, 0.05, 0.05}, Kernel: []float64{0.050, 0.051, 0.049, 0.050, 0.052}},
	}}
	e, err := KernelRatio(old, slower)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e.Ratio-0.8) > 0.01 || e.Lo > 0.8 || e.Hi < 0.8 {
		t.Errorf("kernel at 0.8 of the speed: %v", e)
	}
	before := &results.Yardstick{Work: Description, Readings: []*results.Reading{{Phase: "start", Trials: []float64{0.05}}}}
	if _, err := KernelRatio(before, slower); !errors.Is(err, ErrMissing) {
		t.Errorf("a run without kernel trials: err = %v, want ErrMissing", err)
	}
	other := &results.Yardstick{Work: Description, KernelWork: "kernel yardstick v2", Readings: slower.Readings}
	if _, err := KernelRatio(old, other); err == nil || !strings.Contains(err.Error(), "different work") {
		t.Errorf("different kernel work: err = %v", err)
	}
}
