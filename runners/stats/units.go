package stats

import (
	"strings"

	"golang.org/x/perf/benchmath"
)

// Direction says which way a unit improves.
type Direction int

const (
	Unknown Direction = 0
	Higher  Direction = 1  // higher is better: rates such as req/s
	Lower   Direction = -1 // lower is better: costs per request such as sec/op
)

func (d Direction) String() string {
	switch d {
	case Higher:
		return "higher"
	case Lower:
		return "lower"
	}
	return "unknown"
}

// Better says which direction of unit is an improvement. Units per second are rates
// (req/s, B/s): higher is better. Units per operation are costs of one request
// (sec/op, p99-sec/op, app-cpu-sec/op, db-cpu-sec/op, roundtrips/op, B/op): lower is
// better. This agrees with benchfmt's built-in defaults for ns/op, MB/s, B/op and
// allocs/op, and covers any latency percentile or CPU account without a list.
func Better(unit string) Direction {
	switch {
	case strings.HasSuffix(unit, "/s"):
		return Higher
	case strings.HasSuffix(unit, "/op"):
		return Lower
	}
	return Unknown
}

// Exact reports whether unit counts something deterministic, so that repetitions
// should agree exactly: MySQL commands per request depend on the code path, not on
// timing. Such units are summarized by their value and compared without a test, as
// benchstat does for units marked `assume=exact` (benchfile writes that mark).
func Exact(unit string) bool {
	return unit == "roundtrips/op" || unit == "commands/op"
}

func assumption(unit string) benchmath.Assumption {
	if Exact(unit) {
		return benchmath.AssumeExact
	}
	return benchmath.AssumeNothing
}
