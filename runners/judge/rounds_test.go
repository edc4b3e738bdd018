package judge

import (
	"testing"
	"time"

	"dbbench/runners/results"
)

// A machine that slows down for one round shows as that round's pace, for every
// variant alike; the invalid variant is left out.
func TestRoundsFindMachineWideDrift(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := &results.Run{}
	for i, base := range []float64{1000, 5000, 20000} {
		v := &results.Variant{Key: string(rune('a' + i)), Valid: true}
		for rep := 1; rep <= 4; rep++ {
			q := base
			if rep == 3 {
				q = base * 0.8
			}
			v.Reps = append(v.Reps, &results.Repetition{Rep: rep, QPS: q,
				Started: start.Add(time.Duration(rep)*time.Minute + time.Duration(i)*time.Second)})
		}
		run.Variants = append(run.Variants, v)
	}
	run.Variants = append(run.Variants, &results.Variant{Key: "broken", Valid: false,
		Reps: []*results.Repetition{{Rep: 1, QPS: 1}, {Rep: 2, QPS: 100}}})

	rs := rounds(run)
	if len(rs) != 4 {
		t.Fatalf("%d rounds, want 4: %+v", len(rs), rs)
	}
	for _, r := range rs {
		want := 1.0
		if r.Rep == 3 {
			want = 0.8
		}
		if r.Pace != want || r.Variants != 3 || !r.Started.Equal(start.Add(time.Duration(r.Rep)*time.Minute)) {
			t.Errorf("round %d: pace %.3f over %d variants from %s; want %.2f over 3 from the round's first start", r.Rep, r.Pace, r.Variants, r.Started, want)
		}
	}
}
