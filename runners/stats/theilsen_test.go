package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func mustTrend(t *testing.T, x, y []float64) Trend {
	t.Helper()
	tr, err := TheilSen(x, y)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestTheilSenByHand(t *testing.T) {
	// x = 1..5, y = 1, 3, 2, 5, 4. The 10 pairwise slopes: (1,2) 2, (1,3) 1/2, (1,4) 4/3,
	// (1,5) 3/4, (2,3) -1, (2,4) 1, (2,5) 1/3, (3,4) 3, (3,5) 1, (4,5) -1; sorted:
	// -1, -1, 1/3, 1/2, 3/4, 1, 1, 4/3, 2, 3. Median (3/4 + 1)/2 = 0.875.
	// Var S = 5·4·15/18 = 16.67, C = 1.96·4.082 = 8.002: ranks round(0.999) = 1 and
	// round(9.001) + 1 = 10, so [-1, 3].
	// Residuals y - 0.875x: 0.125, 1.25, -0.625, 1.5, -0.375; median 0.125.
	tr := mustTrend(t, []float64{1, 2, 3, 4, 5}, []float64{1, 3, 2, 5, 4})
	if tr.N != 5 || tr.Pairs != 10 || tr.Slope != 0.875 || tr.Lo != -1 || tr.Hi != 3 || tr.Intercept != 0.125 {
		t.Errorf("got %+v, want n 5, 10 pairs, slope 0.875 [-1, 3], intercept 0.125", tr)
	}
	if !tr.HasInterval() || len(tr.Warnings) != 0 {
		t.Errorf("%+v: want an interval and no warning", tr)
	}
}

func TestTheilSenCleanLine(t *testing.T) {
	// y = 3 + 2x sampled every 10 s, in shuffled order: every pairwise slope is 2.
	x := []float64{40, 0, 90, 10, 70, 20, 60, 30, 80, 50}
	y := make([]float64, len(x))
	for i := range x {
		y[i] = 3 + 2*x[i]
	}
	tr := mustTrend(t, x, y)
	if tr.Slope != 2 || tr.Lo != 2 || tr.Hi != 2 || tr.Intercept != 3 || tr.Pairs != 45 {
		t.Errorf("got %+v, want slope exactly 2 [2, 2], intercept 3, 45 pairs", tr)
	}
}

func TestTheilSenHeavyTailsAndOutliers(t *testing.T) {
	// y = 100 + 0.5x every 2 s, plus Cauchy noise (no mean, no variance) and three gross
	// outliers. Least squares is thrown off; Theil–Sen is not.
	rng := rand.New(rand.NewPCG(1, 9))
	x, y := make([]float64, 60), make([]float64, 60)
	for i := range x {
		x[i] = 2 * float64(i)
		y[i] = 100 + 0.5*x[i] + math.Tan(math.Pi*(rng.Float64()-0.5))
	}
	y[5] += 500
	y[30] -= 300
	y[55] += 1000
	if ls := leastSquaresSlope(x, y); math.Abs(ls-0.5) < 0.1 {
		t.Fatalf("least squares slope %v: the data are too kind to test robustness", ls)
	}
	tr := mustTrend(t, x, y)
	if math.Abs(tr.Slope-0.5) > 0.03 || !(tr.Lo <= 0.5 && 0.5 <= tr.Hi) || tr.Lo <= 0 || math.Abs(tr.Intercept-100) > 2 {
		t.Errorf("got %+v, want slope 0.5 ± 0.03 inside an interval above 0, intercept 100 ± 2", tr)
	}
}

// leastSquaresSlope is the ordinary least-squares slope, for contrast.
func leastSquaresSlope(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i] / float64(len(x))
		my += y[i] / float64(len(x))
	}
	var sxy, sxx float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	return sxy / sxx
}

func TestTheilSenFlatSeries(t *testing.T) {
	// A flat noisy series does not grow: 1000 series of 40 points, the interval should
	// contain 0 in about 95% of them (standard error 0.007).
	rng := rand.New(rand.NewPCG(2, 10))
	const sets = 1000
	covered := 0
	x, y := make([]float64, 40), make([]float64, 40)
	for range sets {
		for i := range x {
			x[i], y[i] = float64(i), 50+rng.NormFloat64()
		}
		if tr := mustTrend(t, x, y); tr.Lo <= 0 && 0 <= tr.Hi {
			covered++
		}
	}
	if cov := float64(covered) / sets; cov < 0.93 || cov > 0.97 {
		t.Errorf("the interval contained 0 in %.3f of flat series, want 0.93-0.97", cov)
	}
}

func TestTheilSenTiesInX(t *testing.T) {
	// Two readings per second: the four equal-x pairs have no slope. y = 2x + (0 or 1).
	x := []float64{0, 0, 1, 1, 2, 2, 3, 3}
	y := []float64{0, 1, 2, 3, 4, 5, 6, 7}
	tr := mustTrend(t, x, y)
	if tr.Pairs != 28-4 || tr.Slope != 2 || math.IsNaN(tr.Lo) || math.IsNaN(tr.Hi) {
		t.Errorf("got %+v, want 24 pairs and slope 2", tr)
	}
	// Var S = [8·7·21 - 4·(2·1·9)]/18 = (1176 - 72)/18; without ties 1176/18.
	if got, want := kendallVarS(x), 1104.0/18; math.Abs(got-want) > 1e-12 {
		t.Errorf("Var S = %v, want %v", got, want)
	}
	if got, want := kendallVarS([]float64{3, 1, 2, 0, 4, 5, 6, 7}), 1176.0/18; math.Abs(got-want) > 1e-12 {
		t.Errorf("Var S without ties = %v, want %v", got, want)
	}
	// Three equal x: 3·2·11 = 66 off 5·4·15 = 300.
	if got, want := kendallVarS([]float64{1, 1, 1, 2, 3}), (300.0-66)/18; math.Abs(got-want) > 1e-12 {
		t.Errorf("Var S with a triple = %v, want %v", got, want)
	}
}

func TestTheilSenTooShortForInterval(t *testing.T) {
	// Four points: Var S = 4·3·13/18, C = 5.77, rank round((6 - 5.77)/2) = 0: none.
	tr := mustTrend(t, []float64{0, 1, 2, 3}, []float64{0, 1, 2, 3})
	if tr.Slope != 1 || tr.HasInterval() || !math.IsInf(tr.Lo, -1) || !math.IsInf(tr.Hi, 1) || !hasWarning(tr.Warnings, "no 95% interval of the slope from 4 points") {
		t.Errorf("got %+v, want slope 1 without an interval, with a warning", tr)
	}
}

func TestTheilSenRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		x, y []float64
		want string
	}{
		{"lengths", []float64{1, 2, 3}, []float64{1, 2}, "3 x values but 2 y values"},
		{"one point", []float64{1}, []float64{1}, "1 points, want at least 2"},
		{"NaN", []float64{1, 2}, []float64{1, math.NaN()}, "point 2 is (2, NaN)"},
		{"Inf", []float64{math.Inf(1), 2}, []float64{1, 2}, "point 1 is (+Inf, 1)"},
		{"all x equal", []float64{5, 5, 5}, []float64{1, 2, 3}, "all 3 points have x = 5"},
	} {
		if _, err := TheilSen(tc.x, tc.y); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
}

// Noise that wanders (AR(1), lag-1 correlation 0.6) around a flat line: Sen's interval,
// which assumes independent points, misses the true slope 0 far more often than 5% of
// the time; TheilSenSerial's, widened by the effective sample size, about as often as it
// says. 400 seeded series of 100 points.
func TestTheilSenSerialCoversWanderingNoise(t *testing.T) {
	const series, n = 400, 100
	var plainMiss, serialMiss int
	for seed := range uint64(series) {
		r := rand.New(rand.NewPCG(seed, 9))
		x, y := make([]float64, n), make([]float64, n)
		e := 0.0
		for i := range n {
			e = 0.6*e + 0.8*r.NormFloat64()
			x[i], y[i] = float64(i), e
		}
		plain, err := TheilSen(x, y)
		if err != nil {
			t.Fatal(err)
		}
		serial, err := TheilSenSerial(x, y, Confidence)
		if err != nil {
			t.Fatal(err)
		}
		if plain.Lo > 0 || plain.Hi < 0 {
			plainMiss++
		}
		if serial.Lo > 0 || serial.Hi < 0 {
			serialMiss++
		}
		if serial.Lo > plain.Lo || serial.Hi < plain.Hi {
			t.Fatalf("seed %d: serial interval [%g, %g] is not wider than Sen's [%g, %g]", seed, serial.Lo, serial.Hi, plain.Lo, plain.Hi)
		}
	}
	t.Logf("the interval misses slope 0: Sen's in %d of %d, serial in %d", plainMiss, series, serialMiss)
	if plainMiss < series/10 || serialMiss > series*7/100 {
		t.Errorf("misses: Sen's %d (want over 10%%, or this test shows nothing), serial %d (want at most 7%%) of %d", plainMiss, serialMiss, series)
	}
}
