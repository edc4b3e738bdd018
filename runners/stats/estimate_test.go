package stats

import (
	"encoding/json"
	"math"
	"testing"
)

// An estimate writes its value under the name of what it estimates, and no interval as
// null bounds, and reads back what it wrote.
func TestEstimateJSON(t *testing.T) {
	few, err := PairedRatio([]float64{1.1, 1.1, 1.1})
	if err != nil {
		t.Fatal(err)
	}
	shift, err := PairedShift([]float64{3, 4, 5, 3, 4, 6, 5, 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		e    Estimate
		want string
	}{
		{"no interval", few, `{"method":"hodges-lehmann","n":3,"ratio":1.1,"lo":null,"hi":null,"warnings":["need \u003e= 6 pairs for a 95% interval, have 3"]}`},
		{"shift", Estimate{Method: HodgesLehmann, N: 8, Value: 4, Shift: true, Lo: 3.5, Hi: 5, Confidence: 0.95}, `{"method":"hodges-lehmann","n":8,"shift":4,"lo":3.5,"hi":5,"confidence":0.95}`},
		{"ratio", Estimate{Method: HodgesLehmann, N: 8, Value: 1.1, Lo: 1.05, Hi: 1.2, Confidence: 0.95}, `{"method":"hodges-lehmann","n":8,"ratio":1.1,"lo":1.05,"hi":1.2,"confidence":0.95}`},
	} {
		b, err := json.Marshal(tc.e)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: %s, %v; want %s", tc.name, b, err, tc.want)
			continue
		}
		var back Estimate
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if back.String() != tc.e.String() || back.Shift != tc.e.Shift || back.HasInterval() != tc.e.HasInterval() {
			t.Errorf("%s: read back %v, wrote %v", tc.name, back, tc.e)
		}
	}
	if !shift.Shift || !shift.HasInterval() {
		t.Errorf("PairedShift gave %+v, want a shift with an interval", shift)
	}
	var old Estimate // bounds left out, as results.json's schema v4 wrote none
	if err := json.Unmarshal([]byte(`{"method":"hodges-lehmann","ratio":1.2}`), &old); err != nil || old.HasInterval() || !math.IsInf(old.Hi, 1) {
		t.Errorf("bounds left out read as %+v, %v; want no interval", old, err)
	}
}

// Past is a whole interval beyond the margin's band, on either side; touching the band
// or having no interval is not past.
func TestPast(t *testing.T) {
	for _, tc := range []struct {
		e    Estimate
		past bool
	}{
		{Estimate{Value: 1.10, Lo: 1.05, Hi: 1.15, Confidence: 0.95}, true},
		{Estimate{Value: 0.90, Lo: 0.85, Hi: 0.95, Confidence: 0.95}, true},
		{Estimate{Value: 1.04, Lo: 1.02, Hi: 1.06, Confidence: 0.95}, false}, // excludes 1, reaches into the band
		{Estimate{Value: 1.00, Lo: 0.99, Hi: 1.01, Confidence: 0.95}, false},
		{NoInterval(1.5), false},
	} {
		if got := tc.e.Past(0.03); got != tc.past {
			t.Errorf("%v past ±3%%: %v, want %v", tc.e, got, tc.past)
		}
	}
}

// A summary too small for an interval writes null bounds and reads back without one.
func TestSummaryJSON(t *testing.T) {
	s, err := Summarize([]float64{3, 4}, "req/s")
	if err != nil || s.HasInterval() {
		t.Fatalf("two values: %+v, %v; want a summary without an interval", s, err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil || back.HasInterval() || back.Center != s.Center || back.Unit != s.Unit {
		t.Errorf("%s read back as %+v, %v", b, back, err)
	}
}
