package stats

import (
	"math"
	"strings"
	"testing"
)

func mustChange(t *testing.T, old, new []float64, unit string) Change {
	t.Helper()
	c, err := ChangeOf(old, new, unit)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The change is New over Old less 1 whatever the unit's direction.
func TestChangeSign(t *testing.T) {
	old, new := seq(100, 10), seq(120, 10)
	for _, unit := range []string{"req/s", "p99-sec/op", "roundtrips/op"} {
		if c := mustChange(t, old, new, unit); !(c.Mid > 0) || !c.Significant {
			t.Errorf("%s: %s, want a significant rise", unit, c)
		}
		if c := mustChange(t, new, old, unit); !(c.Mid < 0) {
			t.Errorf("%s reversed: %s, want a fall", unit, c)
		}
	}
}

func TestChangeInterval(t *testing.T) {
	old, new := seq(100, 10), seq(120, 10)
	c := mustChange(t, old, new, "req/s")
	if want := 124.5/104.5 - 1; math.Abs(c.Mid-want) > 1e-12 {
		t.Errorf("mid %v, want %v (ratio of medians - 1)", c.Mid, want)
	}
	// Any resample's median lies within its sample's range, so the ratio of medians lies
	// within [min(new)/max(old), max(new)/min(old)].
	if !(120.0/109-1 <= c.Lo && c.Lo < c.Mid && c.Mid < c.Hi && c.Hi <= 129.0/100-1) {
		t.Errorf("interval [%v %v %v] not ordered within [%v, %v]", c.Lo, c.Mid, c.Hi, 120.0/109-1, 129.0/100-1)
	}
	again := mustChange(t, old, new, "req/s")
	if again.Lo != c.Lo || again.Hi != c.Hi {
		t.Errorf("same samples gave [%v, %v] then [%v, %v]: the bootstrap must be reproducible", c.Lo, c.Hi, again.Lo, again.Hi)
	}

	// Same distribution: the interval straddles zero, and benchstat prints ~.
	c = mustChange(t, []float64{1, 3, 5, 7, 9, 11, 13, 15, 17, 19}, []float64{2, 4, 6, 8, 10, 12, 14, 16, 18, 20}, "req/s")
	if !(c.Lo < 0 && 0 < c.Hi) || c.Significant || c.Delta != "~" {
		t.Errorf("same distribution: %s, want an interval around 0 and no significant change", c)
	}
}

func TestChangeTooFewSamples(t *testing.T) {
	// Five against five can be significant (min p = 2/252) but have no median intervals.
	// Medians 102 and 122: +19.61%.
	c := mustChange(t, seq(100, 5), seq(120, 5), "req/s")
	if !math.IsInf(c.Lo, -1) || !math.IsInf(c.Hi, 1) {
		t.Errorf("interval [%v, %v], want [-Inf, +Inf]", c.Lo, c.Hi)
	}
	if !hasWarning(c.Warnings, "no change interval") || !c.Significant {
		t.Errorf("%s: want significant, with a no-interval warning", c)
	}
	if s := c.String(); !strings.HasPrefix(s, "[-∞ +19.61% +∞] (p = 0.008, n = 5) (") {
		t.Errorf("String() = %q", s)
	}

	// Three against three cannot be significant, and it says why.
	c = mustChange(t, seq(100, 3), seq(120, 3), "req/s")
	if c.Significant || !hasWarning(c.Warnings, "need >= 4 samples to detect a difference") {
		t.Errorf("%s: want not significant, with the need-4-samples warning", c)
	}
}

func TestChangeExactUnit(t *testing.T) {
	for _, tc := range []struct {
		name        string
		old, new    []float64
		lo, mid, hi float64
		delta       string
	}{
		{"fewer", []float64{4, 4, 4}, []float64{2, 2, 2}, -0.5, -0.5, -0.5, "-50.00%"},
		{"same", []float64{4, 4, 4}, []float64{4, 4, 4}, 0, 0, 0, "0.00%"},
		{"from zero", []float64{0, 0, 0}, []float64{2, 2, 2}, math.Inf(1), math.Inf(1), math.Inf(1), "?"},
		{"ranges", []float64{3, 4, 4}, []float64{2, 2, 3}, 2.0/4 - 1, 2.0/4 - 1, 3.0/3 - 1, "-50.00%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustChange(t, tc.old, tc.new, "roundtrips/op")
			if c.Lo != tc.lo || c.Mid != tc.mid || c.Hi != tc.hi || c.Delta != tc.delta {
				t.Errorf("got %s delta %q, want [%v %v %v] delta %q", c, c.Delta, tc.lo, tc.mid, tc.hi, tc.delta)
			}
			if !strings.Contains(c.String(), "(exact, n = 3)") {
				t.Errorf("String() = %q, want it to say exact", c)
			}
		})
	}
}

func TestChangeRejectsAUnitWithoutDirection(t *testing.T) {
	_, err := ChangeOf(seq(1, 6), seq(2, 6), "widgets")
	if err == nil || !strings.Contains(err.Error(), `unit "widgets": unknown direction`) {
		t.Errorf("err = %v, want it to name the unit", err)
	}
}

func TestChangeString(t *testing.T) {
	c := Change{
		Comparison: Comparison{Unit: "req/s", P: 0.0021645, Old: Summary{N: 6}, New: Summary{N: 8}},
		Lo:         -0.031, Mid: -0.0205, Hi: -0.009,
	}
	if got, want := c.String(), "[-3.10% -2.05% -0.90%] (p = 0.002, n = 6+8)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
