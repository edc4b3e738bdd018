package compare

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"dbbench/runners/judge/compare/comparetest"
)

// The summary answers first: environments, yardstick, verdicts by kind, the gate, the
// largest changes; the full tables follow, one line per variant and metric.
func TestTextSummaryFirst(t *testing.T) {
	new := comparetest.Run(2)
	comparetest.Machine(new, 0.6)
	comparetest.Slow(new, comparetest.Gorm, 0.9)
	r := run(t, comparetest.Run(1), new)
	s := r.String()
	last := -1
	for _, head := range []string{"environment: ", "yardstick: machine speed new/old 0.", "verdicts (noise threshold 3.0%", "  within-run ratios ",
		"  deterministic counts ", "  absolute figures ", "gate: ", "largest changes\n", "within-run ratios (the variant over", "deterministic counts per request", "absolute figures (medians"} {
		i := strings.Index(s, head)
		if i <= last {
			t.Fatalf("%q at %d, after %d: the summary must come first\n%s", head, i, last, s)
		}
		last = i
	}
	// One table line per row, each naming its variant and metric.
	lines := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "  unchanged ") || strings.HasPrefix(l, "  regressed ") || strings.HasPrefix(l, "  improved ") || strings.HasPrefix(l, "  changed ") {
			lines++
		}
	}
	if want := len(r.Rows) + len(r.Largest); lines != want {
		t.Errorf("%d verdict lines, want %d (every row once, the largest changes again)", lines, want)
	}
}

// --format json carries the same data, and an interval that does not exist is null.
func TestJSON(t *testing.T) {
	old, new := comparetest.Run(1), comparetest.Run(2)
	new.Comparisons[0].Pairs = new.Comparisons[0].Pairs[:3] // too few pairs for an interval
	r := run(t, old, new)
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Yardstick struct {
			Speed struct{ Ratio, Lo, Hi *float64 }
		}
		Summary []struct {
			Kind                           string
			Improved, Regressed, Unchanged int
		}
		Rows []struct {
			Kind, Variant, Unit, Verdict string
			Judged                       struct{ Lo, Mid, Hi *float64 }
		}
		Gate struct{ Fails bool }
	}
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("json does not decode: %v", err)
	}
	if len(back.Rows) != len(r.Rows) || len(back.Summary) != 3 || back.Summary[0].Kind != string(Ratio) || back.Yardstick.Speed.Lo == nil {
		t.Errorf("decoded %d rows of %d, summary %+v", len(back.Rows), len(r.Rows), back.Summary)
	}
	nulls := 0
	for i, row := range back.Rows {
		if row.Judged.Lo == nil {
			nulls++
			if !math.IsInf(float64(r.Rows[i].Judged.Lo), -1) || row.Judged.Mid == nil {
				t.Errorf("row %d: null lo for %+v", i, r.Rows[i].Judged)
			}
		}
	}
	if nulls != 2 { // QPS and app CPU of the comparison with three pairs
		t.Errorf("%d rows without an interval, want 2", nulls)
	}
}
