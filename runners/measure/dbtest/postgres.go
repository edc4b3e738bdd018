package dbtest

import (
	"context"
	"testing"

	"dbbench/runners/measure/provider"
)

// StartPostgres brings up an embedded PostgreSQL 15 with rows users, stopped and
// removed when the test ends.
func StartPostgres(t testing.TB, rows int) *provider.Postgres {
	t.Helper()
	pg, err := provider.StartPostgres(context.Background(), rows, 0)
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	t.Cleanup(func() {
		if err := pg.Close(); err != nil {
			t.Errorf("dbtest: stop embedded PostgreSQL: %v", err)
		}
	})
	return pg
}
