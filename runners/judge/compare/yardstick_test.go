package compare

import (
	"errors"
	"math"
	"strings"
	"testing"

	"dbbench/runners/results"
)

func TestYardstickRatio(t *testing.T) {
	reading := func(phase string, xs ...float64) *results.Reading {
		return &results.Reading{Phase: phase, Trials: xs}
	}
	old := &results.Yardstick{Work: "fixed work", Readings: []*results.Reading{
		reading("start", 0.050, 0.051, 0.049, 0.050, 0.052), reading("end", 0.051, 0.050, 0.050, 0.049, 0.050),
	}}
	slower := &results.Yardstick{Work: "fixed work"}
	for _, r := range old.Readings {
		s := &results.Reading{Phase: r.Phase}
		for _, x := range r.Trials {
			s.Trials = append(s.Trials, x/0.6)
		}
		slower.Readings = append(slower.Readings, s)
	}
	e, err := yardstickRatio(old, slower)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e.Value-0.6) > 1e-9 || e.Lo > 0.6 || e.Hi < 0.6 || e.N != 20 {
		t.Errorf("machine at 0.6 of the speed: %v", e)
	}
	if _, err := yardstickRatio(nil, slower); !errors.Is(err, errNoYardstick) || !strings.Contains(err.Error(), "old run") {
		t.Errorf("no old yardstick: err = %v", err)
	}
	other := &results.Yardstick{Work: "something else", Readings: slower.Readings}
	if _, err := yardstickRatio(old, other); err == nil || !strings.Contains(err.Error(), "different work") {
		t.Errorf("different work: err = %v", err)
	}
}

// The kernel's part is compared like the fixed work, and only between runs that timed
// the same kernel work; a run without kernel trials is errNoYardstick, as runs made before
// it existed are.
func TestYardstickKernelRatio(t *testing.T) {
	old := &results.Yardstick{Work: "fixed work", KernelWork: "kernel work", Readings: []*results.Reading{
		{Phase: "start", Trials: []float64{0.05, 0.05, 0.05}, Kernel: []float64{0.040, 0.041, 0.039, 0.040, 0.042}},
	}}
	slower := &results.Yardstick{Work: "fixed work", KernelWork: "kernel work", Readings: []*results.Reading{
		{Phase: "start", Trials: []float64{0.05, 0.05, 0.05}, Kernel: []float64{0.050, 0.051, 0.049, 0.050, 0.052}},
	}}
	e, err := kernelRatio(old, slower)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e.Value-0.8) > 0.01 || e.Lo > 0.8 || e.Hi < 0.8 {
		t.Errorf("kernel at 0.8 of the speed: %v", e)
	}
	before := &results.Yardstick{Work: "fixed work", Readings: []*results.Reading{{Phase: "start", Trials: []float64{0.05}}}}
	if _, err := kernelRatio(before, slower); !errors.Is(err, errNoYardstick) {
		t.Errorf("a run without kernel trials: err = %v, want errNoYardstick", err)
	}
	other := &results.Yardstick{Work: "fixed work", KernelWork: "kernel yardstick v2", Readings: slower.Readings}
	if _, err := kernelRatio(old, other); err == nil || !strings.Contains(err.Error(), "different work") {
		t.Errorf("different kernel work: err = %v", err)
	}
}
