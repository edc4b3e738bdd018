package revcost

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/judge/findings"
	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// The verdict of each figure: stats' decision at the threshold, turned by the figure's
// direction; Beyond only when the whole interval lies past the threshold.
func TestJudgeReadsTheIntervalAgainstTheThreshold(t *testing.T) {
	cpu, qps, allocs := Metrics[0], Metrics[1], Metrics[4]
	for _, tc := range []struct {
		m             Metric
		ratio, lo, hi float64
		beyond        bool
		word          string
	}{
		{cpu, 1.05, 1.02, 1.08, false, "slower"}, // +5% found, not yet known to pass 3%
		{cpu, 1.10, 1.05, 1.15, true, "slower"},
		{cpu, 0.90, 0.85, 0.95, true, "faster"},
		{qps, 0.90, 0.85, 0.95, true, "slower"}, // fewer req/s is worse
		{qps, 1.05, 1.02, 1.08, false, "faster"},
		{cpu, 1.00, 0.99, 1.01, false, "same within ±3%"},
		{cpu, 1.01, 1.005, 1.02, false, "same within ±3%"}, // real, and too small to matter
		{cpu, 1.00, 0.95, 1.06, false, "undecided"},
		{allocs, 1.20, 1.10, 1.30, true, "more"},
		{allocs, 0.80, 0.70, 0.90, true, "fewer"},
		{cpu, 1.30, math.Inf(-1), math.Inf(1), false, "undecided"}, // no interval: too few pairs
	} {
		est := stats.Estimate{Value: tc.ratio, Lo: tc.lo, Hi: tc.hi, N: 8}
		e := judge(tc.m, *findings.Decide(est, 0.03), 0.03)
		if e.Beyond != tc.beyond || e.Word(0.03) != tc.word {
			t.Errorf("%s %.2f [%.3f, %.3f]: beyond=%v %q, want beyond=%v %q", tc.m.Name, tc.ratio, tc.lo, tc.hi,
				e.Beyond, e.Word(0.03), tc.beyond, tc.word)
		}
	}
}

// abRun is a run of two revisions of three variants, measured in 10 pairs under a
// drift both sides share: at B, raw costs 30% more CPU (and serves 23% fewer
// requests) and sends a Ping more; orm is unchanged; hello has one pair only.
func abRun() *results.Run {
	r := &results.Run{Schema: results.Schema, Status: "complete",
		AB: &results.AB{A: &results.Rev{ID: "aaa1111", Subject: "A"}, B: &results.Rev{ID: "bbb2222", Subject: "B"}, Margin: 0.03}}
	type side struct {
		layer string
		cpu   float64
		ping  float64
		pairs int
	}
	for _, s := range []struct{ a, b side }{
		{side{"raw", 100e-6, 0, 10}, side{"raw", 130e-6, 1, 10}},
		{side{"orm", 150e-6, 0, 10}, side{"orm", 150e-6, 0, 10}},
		{side{"hello", 20e-6, 0, 1}, side{"hello", 20e-6, 0, 1}},
	} {
		var pair [2]*results.Variant
		for i, sd := range []side{s.a, s.b} {
			rev := []string{"aaa1111", "bbb2222"}[i]
			v := &results.Variant{
				Key:     "lang=go/server=nethttp/layer=" + sd.layer + "/stmt=interpolate/conn=persistent/pool=8/rev=" + rev,
				Variant: matrix.Variant{Lang: "go", Layer: sd.layer, Rev: rev},
				DB:      sd.layer != "hello",
				Valid:   true,
			}
			if v.DB {
				v.Roundtrips = &results.Roundtrips{Wire: map[string]float64{"Query": 1}}
				if sd.ping > 0 {
					v.Roundtrips.Wire["Ping"] = sd.ping
				}
			}
			for rep := 1; rep <= sd.pairs; rep++ {
				pace := 1 + 0.1*math.Sin(float64(rep))    // the host's drift, shared by the pair
				own := 1 + 0.003*float64((rep*(i+3))%5-2) // each side's own noise, small
				v.Reps = append(v.Reps, &results.Repetition{Rep: rep, Started: time.Unix(int64(rep), 0),
					QPS: 1 / (sd.cpu * pace * own), AppCPU: sd.cpu * pace * own, GenCPU: 1e-6, P50: 1e-3, P99: 2e-3})
			}
			pair[i] = v
			r.Variants = append(r.Variants, v)
		}
		c := &results.Comparison{Question: questions.Rev, Base: pair[0].Key, Other: pair[1].Key, Reached: s.a.pairs >= 6}
		for rep := 1; rep <= s.a.pairs; rep++ {
			c.Pairs = append(c.Pairs, results.Pair{Base: []int{rep}, Other: []int{rep}})
		}
		r.Comparisons = append(r.Comparisons, c)
	}
	return r
}

func TestAnswerFindsThePlantedChangeAndNothingElse(t *testing.T) {
	a, err := Of(abRun())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Variants) != 3 || len(a.Unpaired) != 0 {
		t.Fatalf("%d variants, unpaired %q; want 3 and none", len(a.Variants), a.Unpaired)
	}
	verdicts := func(v Pair) string {
		var out []string
		for _, e := range v.Figures {
			out = append(out, e.Unit+" "+e.Word(0.03))
		}
		return strings.Join(out, ", ")
	}
	raw, orm, hello := a.Variants[0], a.Variants[1], a.Variants[2]
	cpu := raw.Figures[0]
	if cpu.Unit != units.AppCPU || !cpu.Changed() || !cpu.Worse || !cpu.Beyond || cpu.Lo > 1.3 || cpu.Hi < 1.3 {
		t.Errorf("raw's CPU: %s %s beyond=%v; want worse, past 3%%, its interval holding 1.30", Change(cpu.Estimate), cpu.Word(0.03), cpu.Beyond)
	}
	if slices.ContainsFunc(orm.Figures, Figure.Changed) {
		got := verdicts(orm)
		t.Errorf("orm changed nothing, but: %s", got)
	}
	if hello.Figures[0].Verdict != stats.Undecided || hello.Commands.Changed() {
		t.Errorf("hello with one pair: %s, commands %v; want undecided, no commands", verdicts(hello), hello.Commands)
	}
	if want := "1 → 2 commands per request: Ping appeared (1)"; raw.Commands.String() != want {
		t.Errorf("raw's commands: %q, want %q", raw.Commands.String(), want)
	}
	if want := "1 command per request, the same"; orm.Commands.String() != want {
		t.Errorf("orm's commands: %q, want %q", orm.Commands.String(), want)
	}
	regs := a.Regressions()
	if len(regs) != 3 || !strings.Contains(regs[0], "Ping appeared") || !strings.Contains(regs[1], "app CPU per request +30") || !strings.Contains(regs[2], "req/s -23") {
		t.Errorf("regressions:\n%s\nwant the Ping, raw's CPU and raw's req/s", strings.Join(regs, "\n"))
	}
	for _, l := range regs {
		if !strings.HasPrefix(l, "lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=8: ") {
			t.Errorf("regression %q does not name the variant without its rev", l)
		}
	}
}

// A variant invalid on one side has no pair: the answer says so rather than leave it out.
func TestUnpairedVariantsAreNamed(t *testing.T) {
	r := abRun()
	r.Variants[3].Valid, r.Variants[3].InvalidReason = false, "target did not start"
	a, err := Of(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Variants) != 2 || len(a.Unpaired) != 2 || !slices.ContainsFunc(a.Unpaired, func(s string) bool { return strings.Contains(s, "invalid: target did not start") }) {
		t.Errorf("variants %d, unpaired %q", len(a.Variants), a.Unpaired)
	}
	want := "lang=go/server=nethttp/layer=orm/stmt=interpolate/conn=persistent/pool=8: valid at A, invalid at B: target did not start"
	if regs := a.Regressions(); len(regs) == 0 || regs[0] != want {
		t.Errorf("regressions %q, want first %q", regs, want)
	}
	if _, err := Of(&results.Run{}); err == nil {
		t.Error("a run of one revision was answered")
	}
}
