package soak

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"dbbench/runners/stats"
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

func TestSignificantButSmallGrowthIsNotFlagged(t *testing.T) {
	// Memory rising 1% a day without noise over an hour: certainly above 0, but 0.04 MiB
	// is under the 1% of its median an hour can tell from settling: it creeps.
	s := synthetic(Memory, "bytes", 100<<20, 0.01*float64(100<<20)/86400, 0)
	s.Points[len(s.Points)-1].Value += 1 // no ties in the slopes: a strict interval
	v := Judge(s, 360)
	if v.Verdict != Creeps || !(v.Lo > 0) || !strings.Contains(v.Reason, "must see before projecting") || v.Flagged() {
		t.Fatalf("%s (%s), interval lo %g; want creeps with an interval above 0", v.Verdict, v.Reason, v.Lo)
	}
	// Over six hours, 5% a day rises 1.25%, which a soak resolves, but projects under the
	// 10% threshold: it rises slowly. So does a counter gaining 0.5 an hour (under 1).
	long := func(kind Kind, unit string, base, slopePerS float64) *Series {
		l := &Series{Kind: kind, Unit: unit}
		for t := 0.0; t <= 6*3600; t += 60 {
			l.Add(t, base+slopePerS*t+t*1e-9) // the tiny term breaks ties
		}
		return l
	}
	for _, l := range []*Series{
		long(Memory, "bytes", 100<<20, 0.05*float64(100<<20)/86400),
		long(Count, "count", 10, 0.5/3600),
	} {
		if v := Judge(l, 360); v.Verdict != Slow || !strings.Contains(v.Reason, "under the threshold") || v.Flagged() {
			t.Errorf("%s over 6 h: %s (%s), want %q", l.Kind, v.Verdict, v.Reason, Slow)
		}
	}
}

func TestFallingSeriesIsNotProjected(t *testing.T) {
	// A p99 falling as the database warms up: it falls, and no 24-hour figure is printed
	// (a p99 of -2 s a day later means nothing).
	s := synthetic(Level, "s", 0.2, -0.1/3600, 0.005)
	v := Judge(s, 360)
	if v.Verdict != Falls || strings.Contains(v.Reason, "24 h") || v.Flagged() {
		t.Fatalf("%s (%s), want falls with no projection", v.Verdict, v.Reason)
	}
}

func TestCreepWithinResolutionCreeps(t *testing.T) {
	// A 3-minute soak, a sample every 2 s, judged after 1 minute: RSS creeping 0.2 MiB
	// over the 2 minutes on 25 MiB (a few pages paged in). Projected, +144 MiB a day; but
	// 0.2 MiB is under 1% of 25 MiB, which is what such a soak can tell from settling.
	s := &Series{Kind: Memory, Unit: "bytes"}
	r := rand.New(rand.NewPCG(3, 5))
	for t := 0.0; t <= 180; t += 2 {
		s.Add(t, 25<<20+t/120*(0.2*(1<<20))+(2*r.Float64()-1)*(50<<10))
	}
	v := Judge(s, 60)
	if v.Verdict != Creeps || !(v.Lo > 0) || v.PerDay < v.Threshold || !strings.Contains(v.Reason, "must see before projecting") {
		t.Fatalf("%s (%s), lo %g; want creeps for want of resolution, with an interval above 0", v.Verdict, v.Reason, v.Lo)
	}
	// The same creep of 1 MiB (4%) over the 2 minutes passes the resolution, but two
	// minutes are too short to tell memory settling from a leak.
	for i := range s.Points {
		s.Points[i].Value += s.Points[i].T / 120 * 0.8 * (1 << 20)
	}
	if v := Judge(s, 60); v.Verdict != Unresolved || v.Flagged() || !strings.Contains(v.Reason, MinNoisySpan.String()) {
		t.Fatalf("1 MiB in 2 minutes: %s (%s), want unresolved", v.Verdict, v.Reason)
	}
	// 4% over 20 minutes judged is a growth.
	long := &Series{Kind: Memory, Unit: "bytes"}
	for t := 0.0; t <= 1260; t += 10 {
		long.Add(t, 25<<20+t/1200*(1<<20)+(2*r.Float64()-1)*(50<<10))
	}
	if v := Judge(long, 60); v.Verdict != Grows {
		t.Fatalf("1 MiB in 20 minutes: %s (%s), want grows", v.Verdict, v.Reason)
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
	// Judged from the start, the ramp shows, but the last half is flat: not flagged (the
	// line fits a ramp then a plateau badly, and the misfit's runs widen the interval).
	if v := Judge(s, 0); v.Flagged() || (v.Verdict != Settling && v.Verdict != Flat) {
		t.Fatalf("with the warm-up included: %s (%s), want settling or flat", v.Verdict, v.Reason)
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
	if v := Judge(s, 360); v.Verdict != Creeps || v.Flagged() {
		t.Fatalf("0.72/s a day under the floor of 1/s: %s (%s), want creeps", v.Verdict, v.Reason)
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

// simSoak judges one simulated soak of eight variants' noisy series: Go's live heap (3%
// noise, lag-1 correlation 0.6 between samples), RSS (0.3%, 0.8) and p99 (40%, 0.5),
// each multiplied by 1 + leak(t) (t from the end of the warm-up). It samples every dt
// seconds for d seconds, the first w of them warm-up, and returns how many of each kind
// grow. Seeded: the same every run.
func simSoak(seed uint64, d, dt, w float64, leak func(t float64) float64) (heap, rss, p99 int) {
	r := rand.New(rand.NewPCG(seed, 42))
	grows := func(kind Kind, base, sigma, phi float64) int {
		s := &Series{Kind: kind, Unit: "bytes"}
		e := 0.0
		for t := 0.0; t <= d; t += dt {
			e = phi*e + math.Sqrt(1-phi*phi)*sigma*r.NormFloat64()
			s.Add(t, base*(1+e)*(1+leak(max(0, t-w))))
		}
		if Judge(s, w).Verdict == Grows {
			return 1
		}
		return 0
	}
	for range 8 {
		heap += grows(Memory, 1.7e6, 0.03, 0.6)
		rss += grows(Memory, 26e6, 0.003, 0.8)
		p99 += grows(Level, 0.1, 0.4, 0.5)
	}
	return heap, rss, p99
}

// A soak judges dozens of series at once, so a clean one must flag none of them by
// chance. Simulated clean soaks of 90 s (a sample every 3 s, 30 s of warm-up) and of 20
// minutes (every 10 s, 2 minutes of warm-up), 300 of each: at most 2% flag any series.
// A leak of 20% over the judged 18 minutes is caught in every RSS and most live heaps,
// whose 3% noise hides it in about one in five. (A 90-s soak leaves memory and levels
// unresolved.)
func TestCleanSeriesAreRarelyFlagged(t *testing.T) {
	const soaks = 300
	none := func(float64) float64 { return 0 }
	for _, c := range []struct {
		name      string
		d, dt, w  float64
		leak      func(t float64) float64
		heap, rss float64 // the least share of leaking series caught
	}{
		{"90 s", 90, 3, 30, func(t float64) float64 { return t / 60 }, 0, 0},
		{"20 min", 1200, 10, 120, func(t float64) float64 { return 0.2 * t / 1080 }, 0.75, 0.99},
	} {
		flagged := 0
		var heap, rss, p99 int
		for seed := range uint64(soaks) {
			if h, r, p := simSoak(seed, c.d, c.dt, c.w, none); h+r+p > 0 {
				flagged++
			}
			h, r, p := simSoak(seed, c.d, c.dt, c.w, c.leak)
			heap, rss, p99 = heap+h, rss+r, p99+p
		}
		n := float64(8 * soaks)
		t.Logf("%s: clean soaks flagging a series: %d of %d; the leak caught in %.1f%% of live heaps, %.1f%% of RSS, %.1f%% of p99s",
			c.name, flagged, soaks, 100*float64(heap)/n, 100*float64(rss)/n, 100*float64(p99)/n)
		if flagged > soaks/50 {
			t.Errorf("%s: %d of %d clean soaks flagged a series, want at most 2%%", c.name, flagged, soaks)
		}
		if float64(heap) < c.heap*n || float64(rss) < c.rss*n {
			t.Errorf("%s: the leak caught in %d live heaps and %d RSS of %.0f each, want %.0f%% and %.0f%%", c.name, heap, rss, n, 100*c.heap, 100*c.rss)
		}
	}
}

// A count that rose with the requests in flight (a queue at the end of a 90-s soak:
// statements in flight rose from about 5 to 72 in its last 30 s) reads the same with no
// load running before and after: in flight, not flagged. The rise kept at rest is a
// leak, and without samples at rest (soaks before them) the verdict is the trend's.
// Steady connections the generator closes at rest (8 fewer descriptors) are gone from
// both samples, so a slow leak still grows.
func TestACountThatFallsAtRestIsInFlight(t *testing.T) {
	queue := func(before, after float64) *Series {
		s := &Series{Name: "prepared_stmt_count", Kind: Count, Unit: "count"}
		if after >= 0 {
			s.RestBefore, s.RestAfter = &Point{T: -1, Value: before}, &Point{T: 56, Value: after}
		}
		for i, v := range []float64{2, 4, 3, 5, 6, 4, 7, 9, 8, 12, 16, 20, 26, 34, 43, 50, 60, 72} {
			s.Add(float64(3*i), v)
		}
		return s
	}
	if v := Judge(queue(0, -1), 0); v.Verdict != Grows {
		t.Fatalf("no samples at rest: %s (%s), want grows", v.Verdict, v.Reason)
	}
	if v := Judge(queue(1, 1), 0); v.Verdict != InFlight || v.Flagged() || !strings.Contains(v.Reason, "no load running") {
		t.Fatalf("1 before and after at rest: %s (%s), want in flight, not flagged", v.Verdict, v.Reason)
	}
	if v := Judge(queue(1, 56), 0); v.Verdict != Grows {
		t.Fatalf("55 kept at rest: %s (%s), want grows", v.Verdict, v.Reason)
	}
	// One descriptor leaked every 10 minutes for an hour, beside 8 connections that are
	// open under load and closed at rest: 40 + 8 under load, 40 before, 46 after.
	slow := synthetic(Count, "count", 48, 1.0/600, 0)
	slow.RestBefore, slow.RestAfter = &Point{T: -1, Value: 40}, &Point{T: 3601, Value: 46}
	if v := Judge(slow, 360); v.Verdict != Grows {
		t.Fatalf("a slow descriptor leak: %s (%s), want grows", v.Verdict, v.Reason)
	}
}

// Loads that fall short together are the machine's, not the targets': a short load is
// flagged only when it is also below MinOfOthers of the median load. Soak A/A on
// 2026-11-27 (clean90-5 at 0.7): 8 of 19 loads at 93.5–94.7%, the median 96.0%.
func TestLoadsShortTogetherAreNotFlagged(t *testing.T) {
	f := &File{Database: &Role{}}
	for i, r := range []float64{0.935, 0.94, 0.947, 0.955, 0.96, 0.962, 0.97, 0.70} {
		v := &Variant{Key: fmt.Sprintf("v%d", i)}
		a := v.series("achieved")
		a.Verdict = &Verdict{Verdict: OK, Ratio: r}
		if r < MinAchieved {
			a.Verdict.Verdict = Short
		}
		f.Variants = append(f.Variants, v)
	}
	f.judgeLoadsTogether()
	for i, v := range f.Variants {
		got := v.find("achieved").Verdict
		want := OK
		switch {
		case i == 7: // 0.70 is far below the others: its own doing
			want = Short
		case i < 3:
			want = ShortWithOthers
		}
		if got.Verdict != want || got.Flagged() != (want == Short) {
			t.Errorf("load %d at %.3f: %s (%s), want %s", i, got.Ratio, got.Verdict, got.Reason, want)
		}
	}
	if s := f.withOthers(); !strings.Contains(s, "3 of 8 loads fell short of their rate together") {
		t.Errorf("intro: %q", s)
	}
	// One or two variants have no others to be compared with: short is short.
	one := &File{Database: &Role{}, Variants: f.Variants[:1]}
	one.Variants[0].find("achieved").Verdict = &Verdict{Verdict: Short, Ratio: 0.935}
	one.judgeLoadsTogether()
	if v := one.Variants[0].find("achieved").Verdict; v.Verdict != Short {
		t.Errorf("a single short load: %s, want short", v.Verdict)
	}
}

// A steady rise in noise (an outside client's statements, 900 an hour, under the
// targets' statements in flight) whose last half cannot show growth by itself is rising
// and unresolved, with the span that would tell; it is never settling, since its last
// half is not below its first. A heap that fills and stops is settling.
func TestARiseTheLastHalfCannotShowIsRisingNotSettling(t *testing.T) {
	noise := []float64{31, -12, 40, -35, 5, 22, -28, 14, -40, 37, -9, 26, -31, 8, 33, -22, 19, -38, 11, 29, -17, 36, -26, 2}
	leak := &Series{Name: "prepared_stmt_count", Kind: Count, Unit: "count"}
	for i, n := range noise {
		ts := 60 + 10*float64(i)
		leak.Add(ts, 100+0.25*ts+n/2)
	}
	v := Judge(leak, 60)
	if v.Verdict != Rising || v.Flagged() || !strings.Contains(v.Reason, "judging about") {
		t.Fatalf("a steady rise in noise: %s (%s), want %q with the span that tells", v.Verdict, v.Reason, Rising)
	}
	t.Logf("steady rise: %s", v.Reason)

	// The same rise, read the same a second before the load and a second after it:
	// held by requests in flight, not rising.
	leak.RestBefore, leak.RestAfter = &Point{T: 50, Value: 110}, &Point{T: 300, Value: 112}
	if v := Judge(leak, 60); v.Verdict != InFlight {
		t.Fatalf("a rise that fell back at rest: %s (%s), want %q", v.Verdict, v.Reason, InFlight)
	}

	fills := &Series{Name: "prepared_stmt_count", Kind: Count, Unit: "count"}
	for i := range 24 {
		ts := 60 + 10*float64(i)
		fills.Add(ts, 100+60*(1-math.Exp(-float64(i)/4))+noise[i]/10)
	}
	if v := Judge(fills, 60); v.Verdict != Settling {
		t.Fatalf("a rise that stops: %s (%s), want settling", v.Verdict, v.Reason)
	}
}

func TestResolvingSpanGrowsWithTheNoise(t *testing.T) {
	late := stats.Trend{Lo: -1, Hi: 3} // half-width 2, to be 1/2 at a slope of 1: 4^(2/3) = 2.52
	if got := resolvingSpan(4*time.Minute, 1, late); got != 11*time.Minute {
		t.Errorf("4 minutes judged, half-width twice the slope: %v, want 11m0s (10.1 rounded up)", got)
	}
	if got := resolvingSpan(4*time.Minute, 0, late); got != 8*time.Minute {
		t.Errorf("no slope to scale by: %v, want twice the span", got)
	}
}
