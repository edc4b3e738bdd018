package soak

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// synthetic is a series sampled every 10 s for an hour: base + slope·t + noise of the
// given amplitude (uniform, seeded: the same every run).
func synthetic(kind Kind, unit string, base, slopePerS, noise float64) *Series {
	r := rand.New(rand.NewPCG(7, 11))
	s := &Series{Name: "x", Kind: kind, Unit: unit}
	for t := 0.0; t <= 3600; t += 10 {
		s.Add(t, base+slopePerS*t+noise*(2*r.Float64()-1))
	}
	return s
}

func TestFlatNoiseIsFlat(t *testing.T) {
	for _, s := range []*Series{
		synthetic(Memory, "bytes", 50<<20, 0, 2<<20), // RSS wandering ±2 MiB
		synthetic(Count, "count", 40, 0, 3),          // descriptors ±3
		synthetic(Level, "s", 0.004, 0, 0.002),       // p99 4 ms ± 2 ms
	} {
		v := Judge(s, 360)
		if v.Verdict != Flat {
			t.Errorf("%s noise: %s (%s), want flat", s.Kind, v.Verdict, v.Reason)
		}
		if v.N != 325 {
			t.Errorf("%s: judged %d points, want 325 (the 36 of the warm-up excluded)", s.Kind, v.N)
		}
	}
}

func TestSlopeAboveThresholdGrows(t *testing.T) {
	// One statement leaked every 60 s: 60 an hour, far above 1 an hour.
	s := synthetic(Count, "count", 10, 1.0/60, 2)
	v := Judge(s, 360)
	if v.Verdict != Grows {
		t.Fatalf("%s (%s), want grows", v.Verdict, v.Reason)
	}
	if math.Abs(v.Slope*3600-60) > 3 {
		t.Errorf("slope %.2f/h, want about 60/h", v.Slope*3600)
	}
	if !(v.Lo > 0 && v.Lo <= v.Slope && v.Slope <= v.Hi) {
		t.Errorf("interval [%g, %g] does not hold the slope %g above 0", v.Lo, v.Hi, v.Slope)
	}
	// Memory growing 1 MiB every 10 min on a 50 MiB median: 144 MiB a day, far above 10%.
	m := synthetic(Memory, "bytes", 50<<20, float64(1<<20)/600, 1<<20)
	if v := Judge(m, 360); v.Verdict != Grows || !strings.Contains(v.Reason, "MiB") {
		t.Errorf("memory: %s (%s), want grows with the reason in MiB", v.Verdict, v.Reason)
	}
}

func TestSlopeWithinNoiseIsFlat(t *testing.T) {
	// A drift of 2 an hour under noise of ±40: the interval must hold 0.
	s := synthetic(Count, "count", 100, 2.0/3600, 40)
	v := Judge(s, 360)
	if v.Verdict != Flat || !(v.Lo <= 0 && v.Hi >= 0) {
		t.Fatalf("%s, interval [%g, %g] (%s); want flat with 0 inside", v.Verdict, v.Lo*3600, v.Hi*3600, v.Reason)
	}
}

func TestSignificantButSmallGrowthIsFlat(t *testing.T) {
	// Memory rising 1% a day without noise: certainly above 0, but under the 10% threshold.
	s := synthetic(Memory, "bytes", 100<<20, 0.01*float64(100<<20)/86400, 0)
	s.Points[len(s.Points)-1].Value += 1 // no ties in the slopes: a strict interval
	v := Judge(s, 360)
	if v.Verdict != Flat || !(v.Lo > 0) || !strings.Contains(v.Reason, "under the threshold") {
		t.Fatalf("%s (%s), interval lo %g; want flat with an interval above 0", v.Verdict, v.Reason, v.Lo)
	}
	// The same growth on a counter: 0.5 an hour is under 1 an hour.
	c := synthetic(Count, "count", 10, 0.5/3600, 0)
	if v := Judge(c, 360); v.Verdict != Flat {
		t.Fatalf("count +0.5/h: %s (%s), want flat", v.Verdict, v.Reason)
	}
}

func TestCreepWithinResolutionIsFlat(t *testing.T) {
	// A 3-minute soak, a sample every 2 s, judged after 1 minute: RSS creeping 0.2 MiB
	// over the 2 minutes on 25 MiB (a few pages paged in). Projected, +144 MiB a day; but
	// 0.2 MiB is under 1% of 25 MiB, which is what such a soak can tell from settling.
	s := &Series{Kind: Memory, Unit: "bytes"}
	r := rand.New(rand.NewPCG(3, 5))
	for t := 0.0; t <= 180; t += 2 {
		s.Add(t, 25<<20+t/120*(0.2*(1<<20))+(2*r.Float64()-1)*(50<<10))
	}
	v := Judge(s, 60)
	if v.Verdict != Flat || !(v.Lo > 0) || v.PerDay < v.Threshold || !strings.Contains(v.Reason, "must see before projecting") {
		t.Fatalf("%s (%s), lo %g; want flat for want of resolution, with an interval above 0", v.Verdict, v.Reason, v.Lo)
	}
	// The same creep of 1 MiB (4%) over the 2 minutes is a growth.
	for i := range s.Points {
		s.Points[i].Value += s.Points[i].T / 120 * 0.8 * (1 << 20)
	}
	if v := Judge(s, 60); v.Verdict != Grows {
		t.Fatalf("1 MiB in 2 minutes: %s (%s), want grows", v.Verdict, v.Reason)
	}
}

func TestOneStepIsNotAGrowth(t *testing.T) {
	// A thread pool that grows by one thread once, half-way: Theil–Sen's ties keep 0 in.
	s := &Series{Kind: Count, Unit: "count"}
	for t := 0.0; t <= 3600; t += 10 {
		v := 20.0
		if t >= 1800 {
			v = 21
		}
		s.Add(t, v)
	}
	if v := Judge(s, 360); v.Verdict != Flat {
		t.Fatalf("one step: %s (%s), want flat", v.Verdict, v.Reason)
	}
}

func TestWarmupIsExcluded(t *testing.T) {
	// Growth in the first 20 minutes (pools filling, caches warming), flat after. (Theil–
	// Sen shrugs off a short ramp by itself: this one is a third of the series.)
	s := &Series{Kind: Count, Unit: "count"}
	for t := 0.0; t <= 3600; t += 10 {
		s.Add(t, math.Min(t/30, 40)+float64(int(t/10)%3))
	}
	if v := Judge(s, 0); v.Verdict != Grows {
		t.Fatalf("with the warm-up included: %s (%s), want grows (else this test shows nothing)", v.Verdict, v.Reason)
	}
	if v := Judge(s, 1200); v.Verdict != Flat {
		t.Fatalf("warm-up excluded: %s (%s), want flat", v.Verdict, v.Reason)
	}
}

func TestTooFewSamples(t *testing.T) {
	s := &Series{Kind: Count}
	for _, t := range []float64{0, 10, 20, 30, 40, 50} {
		s.Add(t, t)
	}
	if v := Judge(s, 25); v.Verdict != NotEnough || v.N != 3 {
		t.Fatalf("3 points: %s, n=%d; want %q", v.Verdict, v.N, NotEnough)
	}
	if v := Judge(&Series{Kind: Memory}, 0); v.Verdict != NotEnough {
		t.Fatalf("no points: %s", v.Verdict)
	}
}

func TestTimeToLimit(t *testing.T) {
	// 36 statements an hour (0.01/s), 100 of 1000 used: 900 left, 90 000 s.
	s := synthetic(Count, "count", 0, 0.01, 0.5)
	s.Limit = &Limit{Name: "max_prepared_stmt_count", Value: 1000, Used: 100}
	v := Judge(s, 360)
	if v.Verdict != Grows || v.ToLimit == nil {
		t.Fatalf("%s, to limit %v; want grows with a time to the limit", v.Verdict, v.ToLimit)
	}
	if want := 900 / v.Slope; math.Abs(*v.ToLimit-want) > 1e-6 || math.Abs(*v.ToLimit-90000) > 5000 {
		t.Errorf("time to limit %.0f s, want 900/slope = %.0f s (about 90 000)", *v.ToLimit, want)
	}
	// A flat series under its limit gets no time to it.
	f := synthetic(Count, "count", 10, 0, 1)
	f.Limit = &Limit{Name: "max_connections", Value: 151, Used: 10}
	if v := Judge(f, 360); v.Verdict != Flat || v.ToLimit != nil {
		t.Errorf("flat under its limit: %s, to limit %v", v.Verdict, v.ToLimit)
	}
	// A series at its limit is named, grows or not.
	f.Limit.Used = 151
	if v := Judge(f, 360); v.Verdict != Reached || v.ToLimit == nil || *v.ToLimit != 0 || !strings.Contains(v.Reason, "max_connections") {
		t.Errorf("at its limit: %s, %v (%s); want reached, 0, naming the limit", v.Verdict, v.ToLimit, v.Reason)
	}
}

func TestLevelUsesItsFloor(t *testing.T) {
	// Pool waits per second rising from 0 to 0.3 over the hour: 7.2 a second more per
	// day, above the floor of 1 per second (the median, 0.15, is below it).
	s := synthetic(Level, "per s", 0, 0.3/3600, 0.001)
	s.Floor = 1
	if v := Judge(s, 360); v.Verdict != Grows || v.Threshold != 1 {
		t.Fatalf("%s, threshold %g (%s); want grows against the floor 1", v.Verdict, v.Threshold, v.Reason)
	}
	s = synthetic(Level, "per s", 0, 0.03/3600, 0.001)
	s.Floor = 1
	if v := Judge(s, 360); v.Verdict != Flat {
		t.Fatalf("0.72/s a day under the floor of 1/s: %s (%s)", v.Verdict, v.Reason)
	}
}

func TestLoadVerdicts(t *testing.T) {
	achieved := &Series{Kind: Achieved}
	errs := &Series{Kind: Errors}
	for i := range 10 {
		t := float64(10 * i)
		achieved.Add(t, 90)
		achieved.Offered = append(achieved.Offered, Point{t, 100})
		errs.Add(t, 0)
		errs.Requests = append(errs.Requests, Point{t, 1000})
	}
	if v := Judge(achieved, 0); v.Verdict != Short || math.Abs(v.Ratio-0.9) > 1e-9 {
		t.Errorf("90 of 100: %s ratio %g, want short 0.9", v.Verdict, v.Ratio)
	}
	for i := range achieved.Points {
		achieved.Points[i].Value = 99
	}
	if v := Judge(achieved, 0); v.Verdict != OK {
		t.Errorf("99 of 100: %s, want ok", v.Verdict)
	}
	if v := Judge(errs, 0); v.Verdict != OK || v.Ratio != 0 {
		t.Errorf("no errors: %s %g", v.Verdict, v.Ratio)
	}
	errs.Points[3].Value = 20 // 20 of 10 000: 0.2%
	if v := Judge(errs, 0); v.Verdict != ErrorsFound || !v.Flagged() {
		t.Errorf("0.2%% errors: %s, want errors", v.Verdict)
	}
	errs.Points[3].Value = 5 // 0.05%
	if v := Judge(errs, 0); v.Verdict != OK {
		t.Errorf("0.05%% errors: %s, want ok", v.Verdict)
	}
}
