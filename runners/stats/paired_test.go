package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestSignedRankKMatchesPublishedTable(t *testing.T) {
	// Critical values T of the Wilcoxon signed-rank test, two-tailed at 0.05 (reject when
	// T <= critical), University of York, Department of Mathematics, "Critical Values for
	// T in the Wilcoxon Matched-Pairs Signed-Rank Test"
	// (https://www.york.ac.uk/depts/maths/tables/wilcoxon.htm). Some tables print larger
	// values for a few n (such as 30 and 35 for n = 16 and 17): they take the level
	// nearest to 0.05 instead of keeping P(T <= critical) <= 0.025, which would give
	// intervals below 95%. The interval's rank is k = critical + 1.
	//
	// By hand: n = 6, P(T+ <= 0) = 1/64 = 0.016 and P(T+ <= 1) = 2/64 = 0.031, so 0.
	// n = 7: sums 0, 1, 2 each have one subset of {1..7}, 3/128 = 0.023; sum 3 has two,
	// 5/128 = 0.039, so 2. n = 8: sums 0..3 have 1+1+1+2 = 5 subsets, 5/256 = 0.0195;
	// sum 4 has two more, 7/256 = 0.027, so 3.
	critical := map[int]int{
		6: 0, 7: 2, 8: 3, 9: 5, 10: 8, 11: 10, 12: 13, 13: 17, 14: 21, 15: 25,
		16: 29, 17: 34, 18: 40, 19: 46, 20: 52, 21: 58, 22: 65, 23: 73, 24: 81, 25: 89,
	}
	for n, c := range critical {
		if k, _ := signedRankK(n, 0.95); k != c+1 {
			t.Errorf("n = %d: k = %d, want %d (critical value %d)", n, k, c+1, c)
		}
	}
	for n := 1; n < MinPairs; n++ {
		if k, _ := signedRankK(n, 0.95); k != 0 {
			t.Errorf("n = %d: k = %d, want 0 (no 95%% interval)", n, k)
		}
	}
	// n = 10: 25 of the 1024 sign patterns have T+ <= 8 (subsets of {1..10} by sum
	// 0..8: 1, 1, 1, 2, 2, 3, 4, 5, 6), so the coverage is 1 - 50/1024.
	if _, conf := signedRankK(10, 0.95); conf != 1-50.0/1024 {
		t.Errorf("n = 10: confidence %v, want %v", conf, 1-50.0/1024)
	}
}

func TestSignedRankKNormalApproximation(t *testing.T) {
	// Beyond n = 50 the normal approximation answers. The exact counts still fit a
	// uint64 up to n = 63: the approximation must give the exact rank or one less
	// (a wider interval), and claim at least 95%.
	for n := exactSignedRankMax + 1; n <= 63; n++ {
		cdf := signedRankCDF(n)
		exact := 0
		for cdf[exact] <= 0.025 {
			exact++
		}
		k, conf := signedRankK(n, 0.95)
		if k != exact && k != exact-1 || conf < 0.95 || conf > 0.955 {
			t.Errorf("n = %d: k = %d at %v, want %d or %d at about 0.95", n, k, conf, exact, exact-1)
		}
	}
}

func TestSignedRankCDFSumsToOne(t *testing.T) {
	for _, n := range []int{1, 2, 7, 50} {
		cdf := signedRankCDF(n)
		if len(cdf) != n*(n+1)/2+1 || cdf[len(cdf)-1] != 1 {
			t.Errorf("n = %d: %d sums ending at %v, want %d ending at 1", n, len(cdf), cdf[len(cdf)-1], n*(n+1)/2+1)
		}
	}
	// n = 3: sums 0, 1, 2, 3, 3, 4, 5, 6 over the 8 subsets.
	want := []float64{1.0 / 8, 2.0 / 8, 3.0 / 8, 5.0 / 8, 6.0 / 8, 7.0 / 8, 1}
	if got := signedRankCDF(3); !slices.Equal(got, want) {
		t.Errorf("n = 3: %v, want %v", got, want)
	}
}

// ratiosOf returns exp(x/100) for each x: log ratios in hundredths.
func ratiosOf(xs ...float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Exp(x / 100)
	}
	return out
}

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

func TestPairedRatioByHand(t *testing.T) {
	// Log ratios (in hundredths) -2, 1, 3, 4, 6, 10, 12. Their 28 Walsh averages, sorted:
	// -2, -0.5, 0.5, 1, 1, 2, 2, 2.5, 3, 3.5, 3.5, 4, 4, 4.5, 5, 5, 5.5, 6, 6.5, 6.5, 7,
	// 7.5, 8, 8, 9, 10, 11, 12. Median: (4.5 + 5)/2 = 4.75. n = 7: k = 3, so from the 3rd
	// smallest (0.5) to the 3rd largest (10), covering 1 - 2·3/128.
	in := ratiosOf(12, -2, 6, 1, 10, 3, 4)
	orig := slices.Clone(in)
	e, err := PairedRatio(in)
	if err != nil {
		t.Fatal(err)
	}
	if e.Method != HodgesLehmann || e.N != 7 || !near(e.Value, math.Exp(0.0475), 1e-12) ||
		!near(e.Lo, math.Exp(0.005), 1e-12) || !near(e.Hi, math.Exp(0.10), 1e-12) || e.Confidence != 1-6.0/128 {
		t.Errorf("got %+v, want %s n = 7, exp(0.0475) [exp(0.005), exp(0.10)] at %v", e, HodgesLehmann, 1-6.0/128)
	}
	if !e.HasInterval() || !e.ExcludesOne() || len(e.Warnings) != 0 {
		t.Errorf("%s: want an interval above 1, no warnings", e)
	}
	if !near(e.HalfWidth(), math.Exp(0.0475)-1, 1e-12) {
		t.Errorf("half-width %v, want sqrt(exp(0.10)/exp(0.005)) - 1 = %v", e.HalfWidth(), math.Exp(0.0475)-1)
	}
	if !slices.Equal(in, orig) {
		t.Errorf("PairedRatio reordered its input: %v", in)
	}
	if got, want := e.String(), "1.0486 [1.0050, 1.1052] (n = 7, 95.3%)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// lognormalRatios returns n ratios whose logarithms are normal around ln(centre).
func lognormalRatios(rng *rand.Rand, n int, centre, sdLog float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = centre * math.Exp(sdLog*rng.NormFloat64())
	}
	return out
}

func TestPairedRatioCoverage(t *testing.T) {
	// n = 10 uses the exact distribution (nominal 0.9512), n = 60 the normal
	// approximation. 2000 data sets: a standard error of 0.005 on the coverage.
	const centre, sets = 1.05, 2000
	for _, n := range []int{10, 60} {
		rng := rand.New(rand.NewPCG(7, uint64(n)))
		covered := 0
		for range sets {
			e, err := PairedRatio(lognormalRatios(rng, n, centre, 0.05))
			if err != nil {
				t.Fatal(err)
			}
			if e.Lo <= centre && centre <= e.Hi {
				covered++
			}
		}
		if cov := float64(covered) / sets; cov < 0.93 || cov > 0.98 {
			t.Errorf("n = %d: the interval covered the centre in %.3f of data sets, want 0.93-0.98", n, cov)
		}
	}
}

func TestPairedRatioSwapInverts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, est := range []func([]float64) (Estimate, error){PairedRatio, BootstrapMedianRatio} {
		ab := lognormalRatios(rng, 16, 0.97, 0.04)
		ba := make([]float64, len(ab))
		for i, r := range ab {
			ba[i] = 1 / r
		}
		e, err1 := est(ab)
		s, err2 := est(ba)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !near(s.Value, 1/e.Value, 1e-12) || !near(s.Lo, 1/e.Hi, 1e-12) || !near(s.Hi, 1/e.Lo, 1e-12) ||
			!near(s.HalfWidth(), e.HalfWidth(), 1e-9) || s.ExcludesOne() != e.ExcludesOne() {
			t.Errorf("%s: A/B %s, B/A %s: want the ratio and the interval inverted", e.Method, e, s)
		}
		for _, m := range []float64{0.01, 0.05, 0.2} {
			d1, _ := e.Decide(m)
			d2, _ := s.Decide(m)
			if d1 != d2 {
				t.Errorf("%s margin %v: A/B %q, B/A %q: want the same decision", e.Method, m, d1, d2)
			}
		}
	}
}

func TestPairedRatioTooFewPairs(t *testing.T) {
	for _, est := range []func([]float64) (Estimate, error){PairedRatio, BootstrapMedianRatio} {
		// Five pairs: log ratios 1..5 hundredths. HL: the 15 Walsh averages have median 3;
		// the median of the ratios is 3 too.
		e, err := est(ratiosOf(5, 1, 4, 2, 3))
		if err != nil {
			t.Fatal(err)
		}
		if !near(e.Value, math.Exp(0.03), 1e-12) || e.N != 5 {
			t.Errorf("%s: %+v, want the estimate exp(0.03) with n = 5", e.Method, e)
		}
		if e.HasInterval() || e.ExcludesOne() || !math.IsInf(e.HalfWidth(), 1) || !math.IsInf(e.Lo, -1) || !math.IsInf(e.Hi, 1) || e.Confidence != 0 {
			t.Errorf("%s: %+v, want no interval: (−Inf, +Inf), infinite half-width, not different", e.Method, e)
		}
		if !hasWarning(e.Warnings, "need >= 6 pairs for a 95% interval, have 5") {
			t.Errorf("%s: warnings %q, want the need-6-pairs warning", e.Method, e.Warnings)
		}
		if d, _ := e.Decide(0.5); d != Undecided {
			t.Errorf("%s: decision %q, want undecided", e.Method, d)
		}
		if s := e.String(); !strings.Contains(s, "no interval") {
			t.Errorf("String() = %q, want it to say there is no interval", s)
		}
		one, err := est([]float64{1.1})
		if err != nil || !near(one.Value, 1.1, 1e-15) || one.HasInterval() {
			t.Errorf("%s, one pair: %+v, %v: want 1.1 without an interval", e.Method, one, err)
		}
	}
}

func TestPairedRatioAllEqual(t *testing.T) {
	for _, est := range []func([]float64) (Estimate, error){PairedRatio, BootstrapMedianRatio} {
		// Every pair the same ratio: the interval collapses onto it.
		e, err := est([]float64{1.03, 1.03, 1.03, 1.03, 1.03, 1.03, 1.03, 1.03})
		if err != nil {
			t.Fatal(err)
		}
		if !near(e.Value, 1.03, 1e-15) || e.Lo != e.Value || e.Hi != e.Value || e.HalfWidth() != 0 || !e.ExcludesOne() {
			t.Errorf("%s: %+v, want 1.03 [1.03, 1.03], half-width 0, excluding 1", e.Method, e)
		}
		// Exactly 1 everywhere: the interval is [1, 1], equivalent within any margin.
		e, err = est([]float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
		if err != nil {
			t.Fatal(err)
		}
		d, _ := e.Decide(0.001)
		if e.Value != 1 || e.Lo != 1 || e.Hi != 1 || e.HalfWidth() != 0 || e.ExcludesOne() || d != Equivalent {
			t.Errorf("%s: %+v decided %q, want exactly 1 [1, 1], half-width 0, equivalent", e.Method, e, d)
		}
	}
}

func TestPairedRatioRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ratios []float64
		want   string
	}{
		{"empty", nil, "paired ratios: none given"},
		{"zero", []float64{1, 0}, "ratio 2 is 0, want a finite number > 0"},
		{"negative", []float64{-1}, "ratio 1 is -1"},
		{"NaN", []float64{1, 1, math.NaN()}, "ratio 3 is NaN"},
		{"Inf", []float64{math.Inf(1)}, "ratio 1 is +Inf"},
	} {
		for _, est := range []func([]float64) (Estimate, error){PairedRatio, BootstrapMedianRatio} {
			if _, err := est(tc.ratios); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: err = %v, want it to mention %q", tc.name, err, tc.want)
			}
		}
	}
}

func TestBootstrapMedianRatio(t *testing.T) {
	// Log ratios 1..9 hundredths: the median is 5. A resampled median is always one of
	// the values, so the bounds are among them, and the fixed seed repeats them.
	in := ratiosOf(9, 1, 8, 2, 7, 3, 6, 4, 5)
	e, err := BootstrapMedianRatio(in)
	if err != nil {
		t.Fatal(err)
	}
	if e.Method != BootstrapMedian || e.N != 9 || !near(e.Value, math.Exp(0.05), 1e-12) || e.Confidence != 0.95 {
		t.Errorf("got %+v, want %s n = 9 exp(0.05) at nominal 0.95", e, BootstrapMedian)
	}
	if !slices.ContainsFunc(in, func(r float64) bool { return near(r, e.Lo, 1e-12) }) ||
		!slices.ContainsFunc(in, func(r float64) bool { return near(r, e.Hi, 1e-12) }) ||
		!(e.Lo < e.Value && e.Value < e.Hi) {
		t.Errorf("interval [%v, %v]: want two of the ratios around %v", e.Lo, e.Hi, e.Value)
	}
	again, _ := BootstrapMedianRatio(in)
	if again.Lo != e.Lo || again.Hi != e.Hi {
		t.Errorf("same ratios gave %s then %s: the bootstrap must be reproducible", e, again)
	}
}

func TestBootstrapMedianRatioUndercovers(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation of 1000 bootstraps")
	}
	// The documented caveat, measured: n = 8 lognormal ratios, the same 1000 data sets
	// for both methods (2000 resamples each, enough for the quantiles). The bootstrap
	// covers about 0.93, the Hodges–Lehmann interval its exact 0.96.
	const n, centre, sets = 8, 1.05, 1000
	rng := rand.New(rand.NewPCG(3, 4))
	boot, hl := 0, 0
	for range sets {
		ratios := lognormalRatios(rng, n, centre, 0.05)
		e, err := PairedRatio(ratios)
		if err != nil {
			t.Fatal(err)
		}
		if e.Lo <= centre && centre <= e.Hi {
			hl++
		}
		logs, _ := logRatios(ratios)
		if lo, hi := bootstrapMedian(logs, 2000); math.Exp(lo) <= centre && centre <= math.Exp(hi) {
			boot++
		}
	}
	bootCov, hlCov := float64(boot)/sets, float64(hl)/sets
	if bootCov >= 0.945 || hlCov < 0.945 || bootCov >= hlCov {
		t.Errorf("coverage: bootstrap %.3f, Hodges–Lehmann %.3f: want the bootstrap below 0.945 and below HL", bootCov, hlCov)
	}
	t.Logf("coverage at n = %d: bootstrap %.3f, Hodges–Lehmann %.3f", n, bootCov, hlCov)
}

func TestDecide(t *testing.T) {
	est := func(lo, hi float64) Estimate {
		return Estimate{N: 20, Value: math.Sqrt(lo * hi), Lo: lo, Hi: hi, Confidence: 0.95}
	}
	for _, tc := range []struct {
		name   string
		e      Estimate
		margin float64
		want   Decision
	}{
		{"clearly above", est(1.04, 1.08), 0.02, Different},
		{"clearly below", est(0.90, 0.95), 0.02, Different},
		{"small but real", est(1.005, 1.015), 0.02, DifferentWithinMargin},
		{"inside the margin", est(0.99, 1.015), 0.02, Equivalent},
		{"at the margin's edges", est(1/1.02, 1.02), 0.02, Equivalent},
		{"lower edge beyond 1/(1+m)", est(0.980, 1.01), 0.02, Undecided},
		{"too wide", est(0.95, 1.06), 0.02, Undecided},
		{"too wide for 2%, not 10%", est(0.95, 1.06), 0.10, Equivalent},
		{"no interval", NoInterval(1.2), 0.02, Undecided},
	} {
		got, err := tc.e.Decide(tc.margin)
		if err != nil || got != tc.want {
			t.Errorf("%s: %s at ±%v: %q, %v; want %q", tc.name, tc.e, tc.margin, got, err, tc.want)
		}
	}
	for _, m := range []float64{0, -0.02, math.NaN(), math.Inf(1)} {
		if _, err := est(0.99, 1.01).Decide(m); err == nil || !strings.Contains(err.Error(), "want a fraction > 0") {
			t.Errorf("margin %v: err = %v, want a bad-margin error", m, err)
		}
	}
}

// PairedShift is PairedRatio without the logarithms: the same ranks of the same Walsh
// averages bound its interval, so the log ratios' shift is the log of their ratio.
func TestPairedShiftIsPairedRatioWithoutLogs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ratios := make([]float64, 15)
	logs := make([]float64, len(ratios))
	for i := range ratios {
		ratios[i] = 1.1 * math.Exp(0.05*rng.NormFloat64())
		logs[i] = math.Log(ratios[i])
	}
	r, err := PairedRatio(ratios)
	if err != nil {
		t.Fatal(err)
	}
	s, err := PairedShift(logs)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]float64{{math.Exp(s.Value), r.Value}, {math.Exp(s.Lo), r.Lo}, {math.Exp(s.Hi), r.Hi}} {
		if math.Abs(p[0]-p[1]) > 1e-12 {
			t.Fatalf("shift of the logs %+v, ratio %+v", s, r)
		}
	}
	if s.Confidence != r.Confidence || !s.HasInterval() || s.N != 15 {
		t.Fatalf("shift %+v, ratio %+v", s, r)
	}
	per := s.Per(2)
	if per.Value != s.Value/2 || per.Lo != s.Lo/2 || per.Hi != s.Hi/2 {
		t.Fatalf("Per(2) = %+v of %+v", per, s)
	}
	// Differences may be negative or zero, unlike ratios; too few pairs give no interval.
	if s, err := PairedShift([]float64{-3, 0, 2, -1, 5}); err != nil || s.HasInterval() || s.Value != 0.5 || len(s.Warnings) == 0 {
		t.Fatalf("five differences: %+v, %v", s, err)
	}
	for _, bad := range [][]float64{nil, {1, math.NaN()}, {math.Inf(1)}} {
		if _, err := PairedShift(bad); err == nil {
			t.Errorf("PairedShift(%v) gave no error", bad)
		}
	}
}
