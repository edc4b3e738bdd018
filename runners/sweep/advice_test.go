package sweep

import (
	"strings"
	"testing"
)

// curve builds synthetic points: for each pool its QPS centre and p99 centre (seconds),
// with six repetitions spread ±1% around each, so the test sees realistic noise.
func curve(pools []int, qps, p99 []float64) []Point {
	spread := []float64{0.99, 1.01, 0.995, 1.005, 0.998, 1.002}
	var out []Point
	for i, pool := range pools {
		p := Point{Pool: pool}
		for _, f := range spread {
			p.QPS = append(p.QPS, qps[i]*f)
			p.P99 = append(p.P99, p99[i]*f)
		}
		out = append(out, p)
	}
	return out
}

var pools = []int{1, 2, 4, 8, 16, 32, 64}

func TestRecommendClearKnee(t *testing.T) {
	// Throughput doubles up to 8, then stays flat; p99 falls and then levels off.
	a, err := Recommend(curve(pools,
		[]float64{1000, 2000, 4000, 8000, 8100, 8150, 8200},
		[]float64{0.064, 0.032, 0.016, 0.008, 0.0079, 0.0080, 0.0081}))
	if err != nil {
		t.Fatal(err)
	}
	if a.Best != 64 || a.Knee != 8 || a.Pool != 8 || a.DegradesAt != 0 {
		t.Fatalf("best %d knee %d pool %d degrades at %d; want best 64, knee 8, pool 8, no degradation (notes %v)",
			a.Best, a.Knee, a.Pool, a.DegradesAt, a.Notes)
	}
}

func TestRecommendFlatCurve(t *testing.T) {
	// The pool does not matter: the smallest is as good as any.
	a, err := Recommend(curve(pools,
		[]float64{5000, 5010, 4990, 5020, 5000, 5005, 4995},
		[]float64{0.010, 0.010, 0.010, 0.010, 0.010, 0.010, 0.010}))
	if err != nil {
		t.Fatal(err)
	}
	if a.Knee != 1 || a.Pool != 1 {
		t.Fatalf("knee %d pool %d, want 1 and 1 on a flat curve (notes %v)", a.Knee, a.Pool, a.Notes)
	}
}

func TestRecommendCurveThatDegradesPastTheKnee(t *testing.T) {
	// Throughput peaks at 8 and falls as more connections contend inside the database.
	a, err := Recommend(curve(pools,
		[]float64{1500, 3000, 5800, 6000, 5000, 4000, 3000},
		[]float64{0.040, 0.020, 0.011, 0.010, 0.014, 0.020, 0.030}))
	if err != nil {
		t.Fatal(err)
	}
	if a.Best != 8 || a.Knee != 4 || a.DegradesAt != 16 {
		t.Fatalf("best %d knee %d degrades at %d; want 8, 4, 16", a.Best, a.Knee, a.DegradesAt)
	}
	if d := a.Drop; d < 0.16 || d > 0.17 {
		t.Fatalf("drop at 16 is %.3f, want 1-5000/6000", d)
	}
	// Pool 4 reaches 97% of the best QPS, but its p99 (11 ms against 10 ms, with six
	// repetitions that do not overlap) is significantly worse: the advice is 8.
	if a.Pool != 8 {
		t.Fatalf("recommended %d, want 8 (notes %v)", a.Pool, a.Notes)
	}
	if !strings.Contains(strings.Join(a.Notes, "\n"), "pool 4 reaches") {
		t.Fatalf("notes do not say why pool 4 was passed over: %v", a.Notes)
	}
}

func TestRecommendKeepsKneeWhenItsP99IsNotWorse(t *testing.T) {
	// Same degrading curve, but pool 4's p99 equals the best's: 4 is enough.
	a, err := Recommend(curve(pools,
		[]float64{1500, 3000, 5800, 6000, 5000, 4000, 3000},
		[]float64{0.040, 0.020, 0.010, 0.010, 0.014, 0.020, 0.030}))
	if err != nil {
		t.Fatal(err)
	}
	if a.Pool != 4 {
		t.Fatalf("recommended %d, want 4 (notes %v)", a.Pool, a.Notes)
	}
}

func TestRecommendSkipsInvalidPointsAndSaysWhenNothingIsLeft(t *testing.T) {
	ps := curve([]int{1, 2, 4}, []float64{900, 1000, 1010}, []float64{0.01, 0.01, 0.01})
	ps[2].Invalid = "rep 1: 40 of 1000 requests failed"
	a, err := Recommend(ps)
	if err != nil {
		t.Fatal(err)
	}
	if a.Best != 2 {
		t.Fatalf("best %d, want 2: the invalid pool 4 must not count", a.Best)
	}
	for i := range ps {
		ps[i].Invalid = "target did not start"
	}
	if _, err := Recommend(ps); err == nil || !strings.Contains(err.Error(), "no valid pool") {
		t.Fatalf("err = %v, want one saying no valid pool was measured", err)
	}
}

func TestRecommendWarnsWhenTooFewRepetitionsForTheTest(t *testing.T) {
	ps := curve([]int{1, 2}, []float64{1000, 1000}, []float64{0.02, 0.01})
	for i := range ps {
		ps[i].QPS, ps[i].P99 = ps[i].QPS[:3], ps[i].P99[:3]
	}
	a, err := Recommend(ps)
	if err != nil {
		t.Fatal(err)
	}
	// With three repetitions Mann-Whitney cannot reach p < 0.05: pool 1 passes, and the
	// notes must say the test could not tell.
	if a.Pool != 1 || len(a.Notes) == 0 {
		t.Fatalf("pool %d notes %v; want 1 with a warning about too few samples", a.Pool, a.Notes)
	}
}

func TestRuleOfThumbAndPerInstance(t *testing.T) {
	if got := RuleOfThumb(2, 1); got != 5 {
		t.Fatalf("RuleOfThumb(2, 1) = %d, want 5", got)
	}
	if got := PerInstance(151, 4); got != 37 {
		t.Fatalf("PerInstance(151, 4) = %d, want 37", got)
	}
	if got := PerInstance(151, 0); got != 0 {
		t.Fatalf("PerInstance(151, 0) = %d, want 0", got)
	}
}
