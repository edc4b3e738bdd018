package judge

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"dbbench/runners/units"
)

// judgement.json holds what the page shows, as the page's Run holds it: every valid
// variant's summaries, each comparison's estimates, the pools and a revision's answer,
// named by key, with null bounds where an interval is missing. Read from committed
// samples: a quick run (pools, pairs), an ab run (a revision) and a related-rows run
// (shifts).
func TestStoredIsTheRunJudged(t *testing.T) {
	for _, sample := range []string{"quick", "ab-driver", "related-mariadb"} {
		t.Run(sample, func(t *testing.T) {
			j, err := File(filepath.Join("..", "..", "reports", "sample", sample))
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(j.Store())
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			var got struct {
				Schema    string
				Valid     []string
				Summaries []struct {
					Variant string
					Summary struct {
						Unit   string
						Median float64
						Lo, Hi *float64
					}
				}
				Comparisons []struct {
					Question, Base, Other string
					QPS                   *struct {
						Ratio   float64
						Lo, Hi  *float64
						Verdict string
					}
					Shifts map[string]struct{ Shift float64 }
				}
				Pools *struct {
					Sized []struct {
						Variant string
						Advice  struct{ Pool, Recommended int }
					}
				}
				Revision *struct {
					Variants    []struct{ Variant string }
					Regressions []string
				}
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if got.Schema != StoredSchema || len(got.Valid) != len(j.Valid) || len(got.Summaries) != len(j.Summaries) {
				t.Fatalf("schema %q, %d valid, %d summaries; want %q, %d, %d", got.Schema, len(got.Valid), len(got.Summaries), StoredSchema, len(j.Valid), len(j.Summaries))
			}
			var back Stored // and it reads back into Go as it was
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("read back: %v", err)
			}
			for _, b := range back.Summaries {
				s := b.Summary
				want, _ := j.Summary(j.Results.Variant(b.Variant), s.Unit)
				if s.Center != want.Center || s.Lo != want.Lo || s.Hi != want.Hi || s.N != want.N {
					t.Errorf("%s %s read back as %+v, the page's %+v", b.Variant, s.Unit, s, want)
				}
			}
			for _, g := range got.Summaries {
				s := g.Summary
				v := j.Results.Variant(g.Variant)
				want, ok := j.Summary(v, s.Unit)
				if v == nil || !ok || want.Center != s.Median || (s.Lo == nil) != math.IsInf(want.Lo, 0) {
					t.Errorf("%s %s: median %v, lo %v; the page's %+v", g.Variant, s.Unit, s.Median, s.Lo, want)
				}
			}
			for i, c := range got.Comparisons {
				rc := j.Results.Comparisons[i]
				want := j.Comparisons[rc].Finding.QPS
				if c.Other != rc.Other || c.QPS == nil || c.QPS.Ratio != want.Value || c.QPS.Verdict != string(want.Verdict) || (c.QPS.Lo == nil) == want.HasInterval() {
					t.Errorf("comparison %d: %+v; the page's %s %v", i, c.QPS, rc.Other, want)
				}
				if s, ok := j.Comparisons[rc].Shifts[units.AppCPU]; ok && c.Shifts[units.AppCPU].Shift != s.Value {
					t.Errorf("comparison %d: app CPU shift %v, the page's %v", i, c.Shifts[units.AppCPU], s.Value)
				}
			}
			if j.Pools != nil && (got.Pools == nil || len(got.Pools.Sized) != len(j.Pools.Sized)) {
				t.Fatalf("pools %+v; the page's %d sized", got.Pools, len(j.Pools.Sized))
			}
			for i := 0; got.Pools != nil && i < len(got.Pools.Sized); i++ {
				z := got.Pools.Sized[i]
				if want := j.Pools.Sized[i]; z.Variant != want.Variant.Key || z.Advice.Pool != want.Advice.Pool || z.Advice.Recommended != want.Advice.Recommended {
					t.Errorf("pool %d: %+v; the page's %s %d, recommended %d", i, z, want.Variant.Key, want.Advice.Pool, want.Advice.Recommended)
				}
			}
			if a := j.Revision; a != nil && (got.Revision == nil || len(got.Revision.Variants) != len(a.Variants) || len(got.Revision.Regressions) != len(a.Regressions())) {
				t.Errorf("revision %+v; the page's %d variants, regressions %q", got.Revision, len(a.Variants), a.Regressions())
			}
			if sample == "quick" && (j.Pools == nil || len(j.Pools.Sized) == 0) || sample == "ab-driver" && j.Revision == nil || sample == "related-mariadb" && len(got.Comparisons) == 0 {
				t.Errorf("%s: the sample no longer has what this test reads", sample)
			}
		})
	}
}
