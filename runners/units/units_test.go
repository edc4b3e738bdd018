package units

import "testing"

func TestBetter(t *testing.T) {
	for unit, want := range map[string]Direction{
		"req/s":          Higher,
		"B/s":            Higher,
		"sec/op":         Lower,
		"p50-sec/op":     Lower,
		"p99-sec/op":     Lower,
		"app-cpu-sec/op": Lower,
		"db-cpu-sec/op":  Lower,
		"gen-cpu-sec/op": Lower,
		"roundtrips/op":  Lower,
		"errors/op":      Lower,
		"B/op":           Lower,
		"widgets":        Unknown,
		"":               Unknown,
	} {
		if got := Better(unit); got != want {
			t.Errorf("Better(%q) = %v, want %v", unit, got, want)
		}
	}
}

func TestExact(t *testing.T) {
	for unit, want := range map[string]bool{Commands: true, Roundtrips: true, QPS: false, AppCPU: false, "": false} {
		if got := Exact(unit); got != want {
			t.Errorf("Exact(%q) = %v, want %v", unit, got, want)
		}
	}
}
