package sweep

import (
	"testing"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/run"
)

// The rtt sweep's plan: a run per delay and loop, each measuring every variant Reps
// times; its progress line gives the plan's estimate before the first run, then the pace.
func TestRTTProgress(t *testing.T) {
	o := RTTOptions{Run: run.Options{Shape: run.Shape{Reps: 6, Warmup: 500 * time.Millisecond, Duration: 1500 * time.Millisecond}},
		Variants: make([]matrix.Variant, 5), Delays: []time.Duration{0, 200 * time.Microsecond, time.Millisecond, 5 * time.Millisecond}, Rate: 400}
	if o.runs() != 8 {
		t.Fatalf("%d runs, want 4 delays × closed and open", o.runs())
	}
	// 40 points × (6 × 2.35 s + 1.5 s) + 8 runs × 2 s.
	est := RTTEstimate(o)
	if want := 40*(6*2350*time.Millisecond+1500*time.Millisecond) + 16*time.Second; est != want {
		t.Fatalf("estimate %v, want %v", est, want)
	}
	if got, want := rttProgress(1, 8, 0, est, 0, Closed, "out/d0ms/closed"),
		"[rtt run 1 of 8] 0s spent, about 10m40s left: 0 ms each way, closed loop, into out/d0ms/closed"; got != want {
		t.Errorf("first line %q\nwant %q", got, want)
	}
	if got, want := rttProgress(3, 8, 3*time.Minute, est, time.Millisecond, Open, "out/d1ms/open"),
		"[rtt run 3 of 8] 3m0s spent, about 9m0s left: 1 ms each way, open loop, into out/d1ms/open"; got != want {
		t.Errorf("third line %q\nwant %q", got, want)
	}
	o.Rate = 0
	if o.runs() != 4 {
		t.Errorf("%d runs without a rate, want closed loop only", o.runs())
	}
}
