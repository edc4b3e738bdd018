package stats

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// seq returns from, from+1, …, from+n-1.
func seq(from float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = from + float64(i)
	}
	return out
}

func hasWarning(ws []string, part string) bool {
	return slices.ContainsFunc(ws, func(w string) bool { return strings.Contains(w, part) })
}

func TestSummarizeMedianAndInterval(t *testing.T) {
	// 1..11, shuffled. With B ~ Bin(11, ½), the order-statistic interval [X(i), X(j)]
	// covers the median with probability 1 - P(B < i) - P(B >= j). [X(3), X(9)] covers
	// only 1 - 2*67/2048 = 0.9346; the shortest with >= 95% widens one side: [X(2), X(9)],
	// 1 - 12/2048 - 67/2048 = 0.96142578125 (benchmath takes the lower of the two ties).
	values := []float64{7, 3, 11, 1, 9, 5, 2, 10, 6, 4, 8}
	orig := slices.Clone(values)
	s, err := Summarize(values, "req/s")
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 11 || s.Center != 6 || s.Lo != 2 || s.Hi != 9 {
		t.Errorf("got n=%d center=%v [%v, %v], want n=11 center=6 [2, 9]", s.N, s.Center, s.Lo, s.Hi)
	}
	if math.Abs(s.Confidence-0.96142578125) > 1e-12 {
		t.Errorf("confidence %v, want 0.96142578125", s.Confidence)
	}
	if len(s.Warnings) != 0 || !s.HasInterval() {
		t.Errorf("warnings %q, interval %v: want none and a finite interval", s.Warnings, s.HasInterval())
	}
	if !slices.Equal(values, orig) {
		t.Errorf("Summarize reordered its input: %v", values)
	}
	// ± is the larger side: max(9/6 - 1, 1 - 2/6) = 67%.
	if got, want := s.String(), "6.000 ± 67%"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestSummarizeEvenSampleMedian(t *testing.T) {
	s, err := Summarize([]float64{4, 1, 3, 2, 6, 5}, "p99-sec/op")
	if err != nil {
		t.Fatal(err)
	}
	// Six values: the median is the mean of the middle two; [X(1), X(6)] covers
	// 1 - 2/64 = 0.96875, the smallest n with a 95% interval.
	if s.Center != 3.5 || s.Lo != 1 || s.Hi != 6 || math.Abs(s.Confidence-0.96875) > 1e-9 {
		t.Errorf("got center=%v [%v, %v] at %v, want 3.5 [1, 6] at 0.96875", s.Center, s.Lo, s.Hi, s.Confidence)
	}
}

func TestSummarizeTooFewSamples(t *testing.T) {
	s, err := Summarize([]float64{3, 1, 2, 5, 4}, "req/s")
	if err != nil {
		t.Fatal(err)
	}
	// Five values: [X(1), X(5)] covers only 1 - 2/32 = 0.9375, so one bound is infinite.
	if s.Center != 3 || !(math.IsInf(s.Lo, -1) || math.IsInf(s.Hi, 1)) || s.HasInterval() {
		t.Errorf("got center=%v [%v, %v], want 3 with an infinite bound", s.Center, s.Lo, s.Hi)
	}
	if !hasWarning(s.Warnings, "need >= 6 samples for confidence interval at level 0.95") {
		t.Errorf("warnings %q: want the need-6-samples warning", s.Warnings)
	}
	if got := s.String(); !strings.HasPrefix(got, "3.000 ± ∞ (need >= 6 samples") {
		t.Errorf("String() = %q: want the warning beside the number", got)
	}
}

func TestSummarizeExactUnit(t *testing.T) {
	s, err := Summarize([]float64{4, 4, 4}, "roundtrips/op")
	if err != nil {
		t.Fatal(err)
	}
	if s.Center != 4 || s.Lo != 4 || s.Hi != 4 || s.Confidence != 1 || len(s.Warnings) != 0 {
		t.Errorf("got %+v, want exactly 4 with no warning", s)
	}
	s, err = Summarize([]float64{4, 3, 4}, "roundtrips/op")
	if err != nil {
		t.Fatal(err)
	}
	if s.Center != 4 || s.Lo != 3 || s.Hi != 4 || !hasWarning(s.Warnings, "exact distribution expected, but values range from 3 to 4") {
		t.Errorf("got %+v, want mode 4, range [3, 4] and a warning", s)
	}
}

func TestSummarizeRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []float64
		unit   string
		want   string
	}{
		{"empty", nil, "req/s", "req/s: empty sample"},
		{"NaN", []float64{1, math.NaN()}, "req/s", "value 2 is NaN"},
		{"Inf", []float64{math.Inf(1)}, "sec/op", "value 1 is +Inf"},
		{"no unit", []float64{1}, "", "no unit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Summarize(tc.values, tc.unit)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestCompareIdenticalDistributions(t *testing.T) {
	old := seq(100, 10)
	new := []float64{104, 101, 109, 100, 107, 103, 108, 102, 106, 105} // same values, other order
	c, err := Compare(old, new, "req/s")
	if err != nil {
		t.Fatal(err)
	}
	if c.Significant || c.Delta != "~" || c.P != 1 || c.Ratio != 1 {
		t.Errorf("got significant=%v delta=%q p=%v ratio=%v, want ~ with p=1", c.Significant, c.Delta, c.P, c.Ratio)
	}

	// Interleaved samples: the same distribution, different values.
	c, err = Compare([]float64{1, 3, 5, 7, 9, 11, 13, 15, 17, 19}, []float64{2, 4, 6, 8, 10, 12, 14, 16, 18, 20}, "sec/op")
	if err != nil {
		t.Fatal(err)
	}
	if c.Significant || c.Delta != "~" || c.P < 0.5 {
		t.Errorf("interleaved: got significant=%v delta=%q p=%v, want ~ with a large p", c.Significant, c.Delta, c.P)
	}
}

func TestCompareClearShift(t *testing.T) {
	old, new := seq(100, 10), seq(120, 10)
	for _, tc := range []struct {
		old, new  []float64
		wantDelta string
		wantRatio float64
	}{
		{old, new, "+19.14%", 124.5 / 104.5},
		{new, old, "-16.06%", 104.5 / 124.5},
	} {
		c, err := Compare(tc.old, tc.new, "req/s")
		if err != nil {
			t.Fatal(err)
		}
		// Complete separation of 10 and 10: the exact two-sided p is 2/C(20,10).
		if wantP := 2.0 / 184756; math.Abs(c.P-wantP) > 1e-12 {
			t.Errorf("p = %v, want %v", c.P, wantP)
		}
		if !c.Significant || c.Delta != tc.wantDelta || math.Abs(c.Ratio-tc.wantRatio) > 1e-12 {
			t.Errorf("got significant=%v delta=%q ratio=%v, want %q ratio %v", c.Significant, c.Delta, c.Ratio, tc.wantDelta, tc.wantRatio)
		}
		if len(c.Warnings) != 0 {
			t.Errorf("warnings %q, want none", c.Warnings)
		}
	}
}

func TestCompareTooFewSamples(t *testing.T) {
	// Three against three, completely separated: the smallest possible p is 2/C(6,3) = 0.1.
	c, err := Compare([]float64{1, 2, 3}, []float64{10, 11, 12}, "req/s")
	if err != nil {
		t.Fatal(err)
	}
	if c.Significant || c.Delta != "~" || math.Abs(c.P-0.1) > 1e-12 {
		t.Errorf("got significant=%v delta=%q p=%v, want ~ with p=0.1", c.Significant, c.Delta, c.P)
	}
	if !hasWarning(c.Warnings, "need >= 4 samples to detect a difference at alpha level 0.05") {
		t.Errorf("warnings %q: want the need-4-samples warning", c.Warnings)
	}
	if !hasWarning(c.Warnings, "old: need >= 6 samples") || !hasWarning(c.Warnings, "new: need >= 6 samples") {
		t.Errorf("warnings %q: want both summaries' interval warnings", c.Warnings)
	}
}

func TestCompareAllEqual(t *testing.T) {
	c, err := Compare([]float64{0, 0, 0, 0}, []float64{0, 0, 0, 0}, "errors/op")
	if err != nil {
		t.Fatal(err)
	}
	if c.Significant || c.Delta != "~" || c.Ratio != 1 || !hasWarning(c.Warnings, "all samples are equal") {
		t.Errorf("got %+v, want ~, ratio 1 and an all-equal warning", c)
	}
}

func TestCompareRejectsBadSide(t *testing.T) {
	if _, err := Compare(nil, []float64{1}, "req/s"); err == nil || !strings.HasPrefix(err.Error(), "old: ") {
		t.Errorf("empty old: err = %v, want an error naming old", err)
	}
	if _, err := Compare([]float64{1}, []float64{math.NaN()}, "req/s"); err == nil || !strings.HasPrefix(err.Error(), "new: ") {
		t.Errorf("NaN new: err = %v, want an error naming new", err)
	}
}

func TestRatio(t *testing.T) {
	for _, tc := range []struct{ old, new, want float64 }{
		{2, 3, 1.5}, {0, 0, 1}, {0, 2, math.Inf(1)}, {0, -2, math.Inf(-1)}, {4, 0, 0},
	} {
		if got := Ratio(tc.old, tc.new); got != tc.want {
			t.Errorf("Ratio(%v, %v) = %v, want %v", tc.old, tc.new, got, tc.want)
		}
	}
}
