package yardstick

import (
	"errors"
	"math"
	"math/rand/v2"
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
	if r.Phase != "start" || len(r.Trials) != 2 || r.At.IsZero() {
		t.Errorf("Take: %+v", r)
	}
	y := New()
	y.Readings = append(y.Readings, r)
	if s, err := Summary(y); err != nil || s.N != 2 || !(s.Center > 0) {
		t.Errorf("Summary: %+v, %v", s, err)
	}
}

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
	if math.Abs(e.Ratio-0.6) > 1e-12 || !e.HasInterval() || e.Lo > 0.6 || e.Hi < 0.6 || e.Lo == e.Hi {
		t.Errorf("scale 0.6: %v", e)
	}
	if inv := e.Inverse(); math.Abs(inv.Ratio-1/0.6) > 1e-12 || math.Abs(inv.Lo-1/e.Hi) > 1e-12 {
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
