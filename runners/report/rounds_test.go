package report

import (
	"strings"
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
	sentence, _, rows := roundsText(rs)
	if !strings.Contains(sentence, "round 3 ran at 0.80") || strings.Contains(sentence, "round 1") {
		t.Errorf("sentence %q should name round 3 only", sentence)
	}
	if len(rows) != 4 || rows[2][2] != "0.80" {
		t.Errorf("rows %v", rows)
	}
}

func TestRoundsSteadyMachine(t *testing.T) {
	sentence, _, _ := roundsText(rounds(fakeRun(t, 6)))
	if !strings.Contains(sentence, "no machine-wide drift") {
		t.Errorf("fakeRun's QPS rise 0.2%% per round, yet: %q", sentence)
	}
	sentence, _, rows := roundsText(rounds(fakeRun(t, 1)))
	if rows != nil || !strings.Contains(sentence, "One round only") {
		t.Errorf("one repetition: %q, %v", sentence, rows)
	}
}

func TestReportsShowRoundsAndFlags(t *testing.T) {
	r := fakeRun(t, 6)
	r.Variants[1].Flags = []string{"saturated: p99 1.2 s above 1 s"}
	md, err := Markdown(r)
	if err != nil {
		t.Fatal(err)
	}
	page, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]string{"report.md": string(md), "report.html": string(page)} {
		for _, want := range []string{"Stability across rounds", "no machine-wide drift", "saturated: p99 1.2 s above 1 s"} {
			if !strings.Contains(doc, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
}
