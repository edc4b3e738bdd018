package results

import (
	"testing"

	"dbbench/runners/define/matrix"
	"dbbench/runners/units"
)

// A kept pool churns when the server's median count of new connections per request
// passes ChurnLimit; a connection per request dials by design, and a variant whose
// server was not read is not judged.
func TestChurnsJudgesTheMedianOfKeptPools(t *testing.T) {
	reps := func(xs ...float64) []*Repetition {
		var out []*Repetition
		for _, x := range xs {
			out = append(out, &Repetition{Counts: map[string]float64{units.DBDials: x}})
		}
		return out
	}
	for _, c := range []struct {
		name          string
		v             Variant
		dials         float64
		churns, judge bool
	}{
		{"shipped, dialling", Variant{DB: true, Variant: matrix.Variant{Conn: "shipped"}, Reps: reps(0.05, 0.09, 0.2)}, 0.09, true, true},
		{"persistent, one slice that grew", Variant{DB: true, Variant: matrix.Variant{Conn: "persistent"}, Reps: reps(0, 0.3, 0, 0)}, 0, false, true},
		{"per-request", Variant{DB: true, Variant: matrix.Variant{Conn: "per-request"}, Reps: reps(1, 1)}, 1, false, true},
		{"not read", Variant{DB: true, Variant: matrix.Variant{Conn: "persistent"}, Reps: []*Repetition{{}}}, 0, false, false},
	} {
		dials, churns, ok := c.v.Churns()
		if dials != c.dials || churns != c.churns || ok != c.judge {
			t.Errorf("%s: %v %v %v, want %v %v %v", c.name, dials, churns, ok, c.dials, c.churns, c.judge)
		}
	}
}
