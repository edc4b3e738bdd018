package sweep

import (
	"strings"
	"testing"
	"time"

	"dbbench/runners/results"
	"dbbench/runners/saturation"
)

// A point's capacity is the median of its searches with the 95% interval of that
// median: for six searches, their lowest and highest (97%).
func TestSettleTakesTheMedianOfTheSearches(t *testing.T) {
	v := &results.Variant{Capacity: &results.Capacity{SLO: 0.05}}
	var all []*search
	for i, best := range []float64{1000, 1100, 950, 1050, 1200, 1000} {
		all = append(all, &search{v: v, n: i + 1, best: best, decided: true})
	}
	other := &results.Variant{Capacity: &results.Capacity{}}
	all = append(all, &search{v: other, n: 1, best: 5, decided: true})
	// A search none of whose probes decided has nothing to say about the capacity.
	all = append(all, &search{v: v, n: 7})
	settle(v.Capacity, all)
	c := v.Capacity
	if len(c.Searches) != 6 || c.Rate != 1025 || c.Lo != 950 || c.Hi != 1200 {
		t.Fatalf("capacity %+v: want the median 1025 of six searches in [950, 1200]", c)
	}
	// Too few searches for an interval: the median stands, the interval is open.
	few := &results.Variant{Capacity: &results.Capacity{}}
	settle(few.Capacity, []*search{{v: few, best: 10, decided: true}, {v: few, best: 20, decided: true}})
	if few.Capacity.Rate != 15 || few.Capacity.Lo != 0 || few.Capacity.Hi != 0 {
		t.Fatalf("two searches: %+v", few.Capacity)
	}
}

func TestSlicesCountsEveryProbe(t *testing.T) {
	pl := PoolPlan{CeilingReps: 2, Searches: 6, Probes: 4}
	if got := pl.Slices(10); got != 10*(2+24) {
		t.Fatalf("Slices(10) = %d, want 260", got)
	}
}

// A probe whose generator fell behind moves no bracket: counted as a failure, it pulled
// a search to 0 on a busy machine (CI, stop 36), though the target had kept the rate.
func TestAnInconclusiveProbeMovesNoBracket(t *testing.T) {
	s := &search{hi: 400}
	s.record(200, inconclusive)
	if s.lo != 0 || s.hi != 400 || s.best != 0 || s.decided {
		t.Fatalf("after an inconclusive probe: %+v, want the bracket [0, 400] undecided", s)
	}
	s.record(200, held)
	s.record(300, inconclusive)
	s.record(300, failed)
	if s.lo != 200 || s.hi != 300 || s.best != 200 || !s.decided {
		t.Fatalf("held at 200, failed at 300: %+v", s)
	}
}

func TestGeneratorBehindIsInconclusive(t *testing.T) {
	v := &results.Variant{}
	behind := &results.Repetition{P99: 0.002, Saturation: &saturation.Summary{
		Mode: saturation.Open, Connections: 16, Offered: 400, Window: 1, Elapsed: 1,
		Scheduled: 400, Completed: 400, LateGenerator: 80, LateAfter: 0.001, P99: 0.002}}
	if o, why := judge(time.Second, v, behind, 0.01); o != inconclusive || !strings.HasPrefix(why, saturation.GeneratorBehind) {
		t.Fatalf("generator 20%% late: %v %q, want inconclusive", o, why)
	}
	slow := &results.Repetition{P99: 1.5}
	if o, _ := judge(time.Second, v, slow, 0.01); o != failed {
		t.Fatalf("p99 1.5 s against 1 s: %v, want failed", o)
	}
}
