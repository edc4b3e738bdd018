package stats

import (
	"math"
	"testing"
)

// 1.4826 × the median of |x - 3| over 1..5 (2, 1, 0, 1, 2): 1.4826; one value far off
// moves it little, where the plain standard deviation grows twentyfold.
func TestRobustSD(t *testing.T) {
	if got := RobustSD([]float64{5, 1, 3, 2, 4}); math.Abs(got-1.4826) > 1e-12 {
		t.Errorf("RobustSD(1..5) = %v, want 1.4826", got)
	}
	if got := RobustSD([]float64{1, 2, 3, 4, 1000}); math.Abs(got-1.4826) > 1e-12 {
		t.Errorf("with an outlier: %v, want 1.4826", got)
	}
	if RobustSD([]float64{7}) != 0 {
		t.Error("one value: want 0")
	}
}
