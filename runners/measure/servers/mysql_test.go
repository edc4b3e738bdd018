package servers

import (
	"context"
	"testing"

	"dbbench/dsn/protocol"
	"dbbench/runners/measure/dbtest"
)

func TestHostPort(t *testing.T) {
	for host, want := range map[string]int{"127.0.0.1:54321": 54321, "[::1]:3307": 3307, "localhost": 0, "10.77.3.2": 0} {
		if got := hostPort(host); got != want {
			t.Errorf("hostPort(%q) = %d, want %d", host, got, want)
		}
	}
}

// MariaDB's own counts move with each new connection and each prepared statement.
func TestMySQLCountsDialsAndPrepares(t *testing.T) {
	db := dbtest.Start(t, 10)
	admin, err := db.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	admin.SetMaxOpenConns(1)
	ctx := context.Background()
	s := For(protocol.MySQL)
	before, err := s.Counts(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.SetMaxIdleConns(0) // each statement on a new connection: 2 dials
	for range 2 {
		stmt, err := other.PrepareContext(ctx, "SELECT id FROM users WHERE id = ?")
		if err != nil {
			t.Fatal(err)
		}
		stmt.Close()
	}
	after, err := s.Counts(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	if dials, prepares := after.Connections-before.Connections, after.Prepares-before.Prepares; dials != 2 || prepares != 2 || !after.PreparesOK {
		t.Errorf("dials %d, prepares %d (counted %v); want 2 and 2", dials, prepares, after.PreparesOK)
	}
}
