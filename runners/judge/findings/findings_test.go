package findings

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// pairedRun has one comparison, b against a, of n pairs: b serves ratio times a's
// requests at the same app CPU, each pair a little apart (±1%).
func pairedRun(n int, ratio float64) (*results.Run, *results.Comparison) {
	r := &results.Run{Variants: []*results.Variant{{Key: "a"}, {Key: "b"}}}
	c := &results.Comparison{Question: "layer", Base: "a", Other: "b"}
	for i := range n {
		jitter := 1 + 0.01*float64(i%3-1)
		r.Variants[0].Reps = append(r.Variants[0].Reps, &results.Repetition{Rep: i + 1, QPS: 1000, AppCPU: 100e-6})
		r.Variants[1].Reps = append(r.Variants[1].Reps, &results.Repetition{Rep: i + 1, QPS: 1000 * ratio * jitter, AppCPU: 100e-6 * jitter})
		c.Pairs = append(c.Pairs, results.Pair{Base: []int{i + 1}, Other: []int{i + 1}})
	}
	r.Comparisons = []*results.Comparison{c}
	return r, c
}

// A 10% gain in 8 pairs is different; the same app CPU within ±1% is equivalent; the
// stopping rule's half-width is the wider of the two.
func TestJudge(t *testing.T) {
	r, c := pairedRun(8, 1.10)
	f := Judge(r, c)
	if f.Margin != Margin || f.QPS == nil || f.AppCPU == nil {
		t.Fatalf("Judge = %+v", f)
	}
	if f.QPS.Verdict != stats.Different || f.QPS.Value < 1.08 || f.QPS.Value > 1.12 || f.QPS.N != 8 || !(f.QPS.Lo > 1) {
		t.Errorf("QPS %+v: want about 1.10, different", *f.QPS)
	}
	if f.AppCPU.Verdict != stats.Equivalent {
		t.Errorf("app CPU %+v: want equivalent within ±2%%", *f.AppCPU)
	}
	w, ok := HalfWidth(f)
	q, a := f.QPS.HalfWidth(), f.AppCPU.HalfWidth()
	if !ok || w != max(q, a) {
		t.Errorf("HalfWidth = %v, %v; want max(%v, %v)", w, ok, q, a)
	}
	// p99 is not part of the finding; In estimates it from the same pairs, judged alike.
	if e := In(r, c, units.P99); e != nil {
		t.Errorf("p99 in pairs that never measured it: %+v", *e)
	}
	if e := In(r, c, units.QPS); !reflect.DeepEqual(e, f.QPS) {
		t.Errorf("In(QPS) = %+v, want the finding's %+v", *e, *f.QPS)
	}
}

// Five pairs give no interval: the verdict is undecided, the half-width not yet known,
// and the finding writes null bounds (JSON has no infinity) and reads them back as none.
func TestTooFewPairs(t *testing.T) {
	r, c := pairedRun(5, 1.10)
	f := Judge(r, c)
	if f.QPS.Verdict != stats.Undecided || f.QPS.HasInterval() {
		t.Errorf("5 pairs: %+v", *f.QPS)
	}
	if _, ok := HalfWidth(f); ok {
		t.Error("a half-width without an interval")
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatalf("a finding without an interval does not encode: %v", err)
	}
	if !strings.Contains(string(b), `"lo":null,"hi":null`) {
		t.Errorf("no interval written as %s, want null bounds", b)
	}
	var back results.Finding
	if err := json.Unmarshal(b, &back); err != nil || back.QPS.HasInterval() || back.QPS.N != 5 || back.QPS.Verdict != stats.Undecided {
		t.Errorf("read back %+v, %v; want 5 pairs, no interval, undecided", back.QPS, err)
	}
}

// Of keeps a stored finding judged at today's margin and judges again one stored at
// another or none (runs before findings were stored); a run of two revisions is judged
// at its own threshold.
func TestOf(t *testing.T) {
	r, c := pairedRun(8, 1.10)
	if f := Of(r, c); f.QPS == nil || f.QPS.Verdict != stats.Different {
		t.Fatalf("no stored finding: %+v", f)
	}
	c.Finding = &results.Finding{Margin: Margin, QPS: &results.Judged{Estimate: stats.NoInterval(7), Verdict: stats.Undecided}}
	if f := Of(r, c); f != c.Finding {
		t.Errorf("the stored finding was judged again: %+v", f)
	}
	c.Finding.Margin = 0.05
	if f := Of(r, c); f == c.Finding || f.QPS.Value == 7 {
		t.Errorf("a finding stored at another margin was kept: %+v", f)
	}
	r.AB = &results.AB{Margin: 0.03}
	c.Question = "rev"
	if f := Judge(r, c); f.Margin != 0.03 {
		t.Errorf("ab's comparison judged at %v, want its threshold 0.03", f.Margin)
	}
}

// A run of schema v3 stored no finding: read, it is judged from its pairs; a v4 run's
// finding comes back from results.json as it was stored. dbbench ab's comparisons keep
// the finding stored at the run's own threshold.
func TestFindingsThroughResultsJSON(t *testing.T) {
	r, c := pairedRun(8, 1.10)
	dir := t.TempDir()
	read := func(schema string) (*results.Run, *results.Comparison) {
		r.Schema = schema
		path := filepath.Join(dir, schema[len("dbbench/results/"):]+".json")
		if err := results.WriteJSON(path, r); err != nil {
			t.Fatal(err)
		}
		back, err := results.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		return back, back.Comparisons[0]
	}
	old, oc := read("dbbench/results/v3")
	if old.Schema != results.Schema || oc.Finding != nil || !reflect.DeepEqual(Of(old, oc), Judge(r, c)) {
		t.Errorf("v3: schema %s, stored %+v: want it read as %s and judged from its pairs", old.Schema, oc.Finding, results.Schema)
	}
	r.AB, c.Question = &results.AB{Margin: 0.05}, "rev"
	c.Finding = Judge(r, c)
	now, nc := read(results.Schema)
	if nc.Finding == nil || nc.Finding.Margin != 0.05 || !reflect.DeepEqual(Of(now, nc), c.Finding) {
		t.Errorf("v4 ab run: stored %+v, read %+v", c.Finding, nc.Finding)
	}
}
