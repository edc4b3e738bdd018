package sweep

import (
	"strconv"
	"testing"

	"dbbench/runners/results"
	"dbbench/runners/saturation"
)

func itoa(n int) string { return strconv.Itoa(n) }

// closedRep is a closed-loop slice at 64 clients with the given QPS and pool wait per
// request (1000 requests).
func closedRep(n int, qps, waitPerRequest float64) *results.Repetition {
	return &results.Repetition{Rep: n, Requests: 1000, OK: 1000, QPS: qps, P99: 0.01,
		PoolCounted: true, PoolWaitSeconds: 1000 * waitPerRequest, PoolWaits: 500,
		Saturation: &saturation.Summary{Mode: saturation.Closed, Connections: 64, Window: 1, Elapsed: 1, Completed: 1000}}
}

func TestRunsAtKeepsPoolsUpToTheLevelAndTheFirstAbove(t *testing.T) {
	var points []*results.Variant
	for _, pool := range []int{1, 2, 4, 8, 16} {
		points = append(points, &results.Variant{Lang: "go", Server: "nethttp", Layer: "raw", Stmt: "interpolate", Conn: "persistent", Pool: pool})
	}
	var got []int
	for _, v := range points {
		if runsAt(v, points, 3) {
			got = append(got, v.Pool)
		}
	}
	if len(got) != 3 || got[2] != 4 {
		t.Errorf("at 3 clients the points %v run, want 1, 2, 4", got)
	}
	if !isLargest(points[4], points) || isLargest(points[3], points) {
		t.Error("largest pool misjudged")
	}
}
