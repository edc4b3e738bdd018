package report

import (
	"strings"
	"testing"
	"time"

	"dbbench/runners/judge"
)

// A round below the usual pace is named, with a row per round.
func TestRoundsTextNamesTheSlowRound(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var rs []judge.Round
	for rep := 1; rep <= 4; rep++ {
		pace := 1.0
		if rep == 3 {
			pace = 0.8
		}
		rs = append(rs, judge.Round{Rep: rep, Started: start.Add(time.Duration(rep) * time.Minute), Pace: pace, Lo: pace, Hi: pace, Variants: 3})
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
	sentence, _, _ := roundsText(judged(t, fakeRun(t, 6)).Rounds)
	if !strings.Contains(sentence, "no machine-wide drift") {
		t.Errorf("fakeRun's QPS rise 0.2%% per round, yet: %q", sentence)
	}
	sentence, _, rows := roundsText(judged(t, fakeRun(t, 1)).Rounds)
	if rows != nil || !strings.Contains(sentence, "One round only") {
		t.Errorf("one repetition: %q, %v", sentence, rows)
	}
}

func TestReportsShowRoundsAndFlags(t *testing.T) {
	r := fakeRun(t, 6)
	r.Variants[1].Flags = []string{"saturated: p99 1.2 s above 1 s"}
	md, err := Markdown(judged(t, r))
	if err != nil {
		t.Fatal(err)
	}
	page, err := HTML(judged(t, r))
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
