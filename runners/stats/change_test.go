package stats

import (
	"math"
	"strings"
	"testing"
)

func mustChange(t *testing.T, old, new []float64, unit string, noise float64) Change {
	t.Helper()
	c, err := ChangeOf(old, new, unit, noise)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestChangeClearShiftVerdictFollowsUnit(t *testing.T) {
	old, new := seq(100, 10), seq(120, 10)
	// Throughput up: better. Latency up: worse.
	for unit, want := range map[string]Verdict{"req/s": Improved, "p99-sec/op": Regressed, "roundtrips/op": Regressed} {
		c := mustChange(t, old, new, unit, DefaultNoise)
		if c.Verdict != want {
			t.Errorf("%s: verdict %q, want %q (%s)", unit, c.Verdict, want, c)
		}
	}
	// And the other way round.
	for unit, want := range map[string]Verdict{"req/s": Regressed, "app-cpu-sec/op": Improved} {
		c := mustChange(t, new, old, unit, DefaultNoise)
		if c.Verdict != want || c.Mid >= 0 {
			t.Errorf("%s reversed: verdict %q mid %v, want %q with a negative change", unit, c.Verdict, c.Mid, want)
		}
	}
}

func TestChangeInterval(t *testing.T) {
	old, new := seq(100, 10), seq(120, 10)
	c := mustChange(t, old, new, "req/s", DefaultNoise)
	if want := 124.5/104.5 - 1; math.Abs(c.Mid-want) > 1e-12 {
		t.Errorf("mid %v, want %v (ratio of medians - 1)", c.Mid, want)
	}
	// Any resample's median lies within its sample's range, so the ratio of medians lies
	// within [min(new)/max(old), max(new)/min(old)].
	if !(120.0/109-1 <= c.Lo && c.Lo < c.Mid && c.Mid < c.Hi && c.Hi <= 129.0/100-1) {
		t.Errorf("interval [%v %v %v] not ordered within [%v, %v]", c.Lo, c.Mid, c.Hi, 120.0/109-1, 129.0/100-1)
	}
	again := mustChange(t, old, new, "req/s", DefaultNoise)
	if again.Lo != c.Lo || again.Hi != c.Hi {
		t.Errorf("same samples gave [%v, %v] then [%v, %v]: the bootstrap must be reproducible", c.Lo, c.Hi, again.Lo, again.Hi)
	}

	// Same distribution: the interval straddles zero and the verdict is no change.
	c = mustChange(t, []float64{1, 3, 5, 7, 9, 11, 13, 15, 17, 19}, []float64{2, 4, 6, 8, 10, 12, 14, 16, 18, 20}, "req/s", DefaultNoise)
	if !(c.Lo < 0 && 0 < c.Hi) || c.Verdict != NoChange || c.Delta != "~" {
		t.Errorf("same distribution: %s, want an interval around 0 and no change", c)
	}
}

func TestChangeNoiseThreshold(t *testing.T) {
	// Completely separated (p = 1.1e-5) but only about 1% apart.
	old, new := seq(1000, 10), seq(1010, 10)
	c := mustChange(t, old, new, "req/s", DefaultNoise)
	if !c.Significant || c.Verdict != WithinNoise || math.Abs(c.Mid-(1014.5/1004.5-1)) > 1e-12 {
		t.Errorf("3%% noise: %s, want a significant change within noise", c)
	}
	if c := mustChange(t, old, new, "req/s", 0.005); c.Verdict != Improved {
		t.Errorf("0.5%% noise: %s, want improved", c)
	}
	if c := mustChange(t, old, new, "sec/op", 0.005); c.Verdict != Regressed {
		t.Errorf("0.5%% noise, sec/op: %s, want regressed", c)
	}
}

func TestChangeTooFewSamples(t *testing.T) {
	// Five against five can be significant (min p = 2/252) but have no median intervals.
	// Medians 102 and 122: +19.61%.
	c := mustChange(t, seq(100, 5), seq(120, 5), "req/s", DefaultNoise)
	if !math.IsInf(c.Lo, -1) || !math.IsInf(c.Hi, 1) {
		t.Errorf("interval [%v, %v], want [-Inf, +Inf]", c.Lo, c.Hi)
	}
	if !hasWarning(c.Warnings, "no change interval") || !c.Significant || c.Verdict != Improved {
		t.Errorf("%s: want significant, improved, with a no-interval warning", c)
	}
	if s := c.String(); !strings.HasPrefix(s, "[-∞ +19.61% +∞] (p = 0.008, n = 5) improved (") {
		t.Errorf("String() = %q", s)
	}

	// Three against three cannot be significant: no change, and it says why.
	c = mustChange(t, seq(100, 3), seq(120, 3), "req/s", DefaultNoise)
	if c.Verdict != NoChange || !hasWarning(c.Warnings, "need >= 4 samples to detect a difference") {
		t.Errorf("%s: want no change with the need-4-samples warning", c)
	}
}

func TestChangeExactUnit(t *testing.T) {
	for _, tc := range []struct {
		name        string
		old, new    []float64
		verdict     Verdict
		lo, mid, hi float64
		delta       string
	}{
		{"fewer", []float64{4, 4, 4}, []float64{2, 2, 2}, Improved, -0.5, -0.5, -0.5, "-50.00%"},
		{"same", []float64{4, 4, 4}, []float64{4, 4, 4}, NoChange, 0, 0, 0, "0.00%"},
		{"from zero", []float64{0, 0, 0}, []float64{2, 2, 2}, Regressed, math.Inf(1), math.Inf(1), math.Inf(1), "?"},
		{"ranges", []float64{3, 4, 4}, []float64{2, 2, 3}, Improved, 2.0/4 - 1, 2.0/4 - 1, 3.0/3 - 1, "-50.00%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustChange(t, tc.old, tc.new, "roundtrips/op", DefaultNoise)
			if c.Verdict != tc.verdict || c.Lo != tc.lo || c.Mid != tc.mid || c.Hi != tc.hi || c.Delta != tc.delta {
				t.Errorf("got %s delta %q, want [%v %v %v] %s delta %q", c, c.Delta, tc.lo, tc.mid, tc.hi, tc.verdict, tc.delta)
			}
			if !strings.Contains(c.String(), "(exact, n = 3)") {
				t.Errorf("String() = %q, want it to say exact", c)
			}
		})
	}
}

func TestChangeRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		unit  string
		noise float64
		want  string
	}{
		{"negative noise", "req/s", -0.01, "noise -0.01"},
		{"noise as percent", "req/s", 3, "want a fraction in [0, 1)"},
		{"NaN noise", "req/s", math.NaN(), "noise NaN"},
		{"unknown unit", "widgets", DefaultNoise, `unit "widgets": unknown direction`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ChangeOf(seq(1, 6), seq(2, 6), tc.unit, tc.noise)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestChangeString(t *testing.T) {
	c := Change{
		Comparison: Comparison{Unit: "req/s", P: 0.0021645, Old: Summary{N: 6}, New: Summary{N: 8}},
		Lo:         -0.031, Mid: -0.0205, Hi: -0.009, Verdict: Regressed,
	}
	if got, want := c.String(), "[-3.10% -2.05% -0.90%] (p = 0.002, n = 6+8) regressed"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
