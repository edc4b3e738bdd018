package stats

import (
	"math"
	"slices"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{7}, 7},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{-1, -1, 5, 5}, 2},
	} {
		in := slices.Clone(tc.xs)
		if got := Median(in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
		if !slices.Equal(in, tc.xs) {
			t.Errorf("Median sorted its input: %v", in)
		}
	}
}

// Every exported function has one answer for no values: NaN where it returns a number,
// an error where it returns an estimate (median.go).
func TestEmptyInput(t *testing.T) {
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) = %v, want NaN", got)
	}
	if got := RobustSD(nil); !math.IsNaN(got) {
		t.Errorf("RobustSD(nil) = %v, want NaN", got)
	}
	errs := map[string]func() error{
		"Summarize":            func() error { _, err := Summarize(nil, "req/s"); return err },
		"Compare":              func() error { _, err := Compare(nil, nil, "req/s"); return err },
		"ChangeOf":             func() error { _, err := ChangeOf(nil, nil, "req/s"); return err },
		"PairedRatio":          func() error { _, err := PairedRatio(nil); return err },
		"BootstrapMedianRatio": func() error { _, err := BootstrapMedianRatio(nil); return err },
		"TwoSampleRatio":       func() error { _, err := TwoSampleRatio(nil, nil); return err },
		"TheilSen":             func() error { _, err := TheilSen(nil, nil); return err },
		"TheilSenSerial":       func() error { _, err := TheilSenSerial(nil, nil, Confidence); return err },
	}
	for name, f := range errs {
		if err := f(); err == nil {
			t.Errorf("%s of no values: no error", name)
		}
	}
}
