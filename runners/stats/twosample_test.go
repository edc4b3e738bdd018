package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Critical values of the two-sided Mann–Whitney test at 5% (reject when U <= c), from
// the standard tables (Hollander & Wolfe, table A.6; any statistics textbook): the
// Moses interval's rank is c + 1.
func TestMannWhitneyKMatchesTables(t *testing.T) {
	for _, tc := range []struct{ m, n, crit int }{
		{4, 4, 0}, {5, 5, 2}, {6, 6, 5}, {8, 8, 13}, {10, 10, 23}, {5, 10, 8}, {20, 20, 127},
	} {
		k, conf := mannWhitneyK(tc.m, tc.n, 0.95)
		if k != tc.crit+1 || conf < 0.95 {
			t.Errorf("m=%d n=%d: k = %d (coverage %.4f), want %d", tc.m, tc.n, k, conf, tc.crit+1)
		}
	}
	if k, _ := mannWhitneyK(3, 3, 0.95); k != 0 {
		t.Errorf("3 against 3: k = %d, want 0 (no interval reaches 95%%)", k)
	}
	// Where the exact distribution ends, the normal approximation agrees within a rank.
	exact, _ := mannWhitneyK(40, 40, 0.95)
	mean, sd := 800.0, math.Sqrt(40*40*81/12.0)
	approx := int(math.Floor(mean + 0.5 - 1.959964*sd))
	if d := exact - approx; d < -1 || d > 1 {
		t.Errorf("m=n=40: exact k %d, normal approximation %d", exact, approx)
	}
}

func TestTwoSampleRatio(t *testing.T) {
	old := []float64{10, 11, 9, 10.5, 9.5, 10.2}
	scaled := make([]float64, len(old))
	for i, x := range old {
		scaled[i] = 0.6 * x
	}
	// A pure scale is a pure shift of the logs: the estimate is the scale, and the
	// interval is not a point (the differences between unlike values spread it).
	e, err := TwoSampleRatio(old, scaled)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(e.Value-0.6) > 1e-12 || !e.HasInterval() || e.Lo > 0.6 || e.Hi < 0.6 || e.Lo == e.Hi {
		t.Errorf("scale 0.6: %v", e)
	}
	if inv := e.Inverse(); math.Abs(inv.Value-1/0.6) > 1e-12 || math.Abs(inv.Lo-1/e.Hi) > 1e-12 {
		t.Errorf("inverse: %v of %v", inv, e)
	}
	few, err := TwoSampleRatio([]float64{1, 2, 3}, []float64{1, 2, 3})
	if err != nil || few.HasInterval() || len(few.Warnings) != 1 {
		t.Errorf("3 against 3: %v, %v; want an estimate without an interval and a warning", few, err)
	}
	if _, err := TwoSampleRatio([]float64{1, 0}, []float64{1, 2}); err == nil || !strings.Contains(err.Error(), "value 2 is 0") {
		t.Errorf("a zero value: err = %v", err)
	}
}

// On shifted lognormal samples the interval covers the true ratio as often as it says.
func TestTwoSampleRatioCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, size := range [][2]int{{6, 6}, {10, 15}, {45, 45}} {
		const sets, truth = 2000, 0.8
		covered := 0
		for range sets {
			a, b := make([]float64, size[0]), make([]float64, size[1])
			for i := range a {
				a[i] = math.Exp(0.1 * rng.NormFloat64())
			}
			for i := range b {
				b[i] = truth * math.Exp(0.1*rng.NormFloat64())
			}
			e, err := TwoSampleRatio(a, b)
			if err != nil {
				t.Fatal(err)
			}
			if e.Lo <= truth && truth <= e.Hi {
				covered++
			}
		}
		// 95% ± 3 binomial standard errors (0.5% at 2000 sets) and the discreteness.
		if got := float64(covered) / sets; got < 0.935 || got > 0.975 {
			t.Errorf("m=%d n=%d: coverage %.3f, want about 0.95", size[0], size[1], got)
		}
	}
}
