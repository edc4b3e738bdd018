package stats

import (
	"math"
	"testing"
)

func TestMeanOf(t *testing.T) {
	m := MeanOf([]float64{1, 2, 3, 4, 5})
	// s = √2.5, half = 1.96·√2.5/√5 = 1.386
	if m.Mean != 3 || math.Abs(m.Hi-m.Mean-1.386) > 0.001 || math.Abs(m.Mean-m.Lo-1.386) > 0.001 || m.P99 != 5 {
		t.Errorf("MeanOf(1..5) = %+v", m)
	}
	if one := MeanOf([]float64{7}); one.Mean != 7 || !one.Infinite || !math.IsInf(one.Hi, 1) {
		t.Errorf("MeanOf(7) = %+v, want 7 with an infinite interval", one)
	}
	if none := MeanOf(nil); !none.Void || !math.IsNaN(none.Mean) {
		t.Errorf("MeanOf(nil) = %+v, want void and NaN", none)
	}
}
