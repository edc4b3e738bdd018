package stats

import (
	"golang.org/x/perf/benchmath"

	"dbbench/runners/units"
)

// Exact reports whether unit is an exact count (units.Exact), which this package
// summarizes by value and compares without a test.
func Exact(unit string) bool { return units.Exact(unit) }

func assumption(unit string) benchmath.Assumption {
	if Exact(unit) {
		return benchmath.AssumeExact
	}
	return benchmath.AssumeNothing
}
