package run

import (
	"context"
	"fmt"

	"dbbench/runners/measure/loadgen"
	"dbbench/runners/results"
)

// The lost-update check: every successful update request adds one visit to one fixture
// row, in a transaction of its own, so over a measured slice (or a variant's turns of a
// block, which no other variant's requests overlap: turns.go) the visits the fixture
// rows gained must equal the update's successful requests, exactly. A layer that reads
// the counter without a lock loses some when two requests visit one user at once, as
// 64 clients do now and then; it is then invalid, its figures never reported as fast
// or slow.

// isUpdate says whether rv measures the update op.
func (r *runner) isUpdate(rv *results.Variant) bool {
	op, _ := opOf(r.specs[rv.Key].Op)
	return op == loadgen.Update
}

// visitsSum reads the visits of the fixture rows (ids 1..N, where updates land): a
// range of the primary key, as cheap however many rows inserts add above it.
func (r *runner) visitsSum(ctx context.Context, d *database) (int64, error) {
	var n int64
	err := d.admin.QueryRowContext(ctx, d.db.Rebind("SELECT COALESCE(SUM(visits), 0) FROM users WHERE id <= ?"), d.db.Rows).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count the visits: %w", err)
	}
	return n, nil
}

// rows is the fixture rows every server of the run holds.
func (r *runner) rows() int { return r.first().db.Rows }

// successes counts a result's 2xx answers: the requests that say they committed.
func successes(res *loadgen.Result) int64 {
	var n int64
	for status, c := range res.Status {
		if status/100 == 2 {
			n += c
		}
	}
	return n
}

// judgeVisits records what an update repetition gained against its successes, and
// marks v invalid when they differ; false then.
func (r *runner) judgeVisits(v *results.Variant, rep *results.Repetition, res *loadgen.Result, gained int64, what string) bool {
	rep.Visits = &results.Visits{Successful: successes(res), Gained: gained}
	lost := rep.Visits.Lost()
	switch {
	case lost > 0:
		r.invalidate(v, fmt.Sprintf("%s: LOST UPDATES: %d successful visits at %d clients, the table gained %d: %d lost",
			what, rep.Visits.Successful, res.Connections, gained, lost))
	case lost < 0:
		r.invalidate(v, fmt.Sprintf("%s: the table gained %d visits for %d successful requests at %d clients: %d not answered as successes",
			what, gained, rep.Visits.Successful, res.Connections, -lost))
	}
	return lost == 0
}
