package servers

import (
	"context"
	"testing"
	"time"

	"dbbench/dsn/protocol"
	"dbbench/runners/measure/dbtest"
)

// On a PostgreSQL of this host, each client's backend memory is read (a backend holds
// some of its own), and the asker is not among the clients it lists.
func TestPostgresTracesBackendMemory(t *testing.T) {
	pg := dbtest.StartPostgres(t, 10)
	admin, err := pg.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	admin.SetMaxOpenConns(1)
	other, err := pg.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	if err := other.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	s := For(protocol.Postgres)
	traced := s.Traces(ctx, admin)
	if !traced.Memory || traced.Statements {
		t.Fatalf("Traces = %+v, want memory and no statements", traced)
	}
	clients, err := s.Clients(ctx, admin, traced)
	if err != nil || len(clients) != 1 {
		t.Fatalf("Clients = %v, %v; want the other connection alone", clients, err)
	}
	for pid, c := range clients {
		if c.Memory < 64<<10 || c.Port == 0 {
			t.Errorf("backend %d: %+v; want 64 KiB or more of its own, and its client port", pid, c)
		}
	}
}

// The server's own count of sessions moves with a new connection.
func TestPostgresCountsSessions(t *testing.T) {
	pg := dbtest.StartPostgres(t, 10)
	admin, err := pg.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	admin.SetMaxOpenConns(1)
	ctx := context.Background()
	s := For(protocol.Postgres)
	before, err := s.Counts(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		other, err := pg.Open()
		if err != nil {
			t.Fatal(err)
		}
		if err := other.PingContext(ctx); err != nil {
			t.Fatal(err)
		}
		other.Close()
	}
	// A backend reports its session when it starts; the statistics reach the reader at
	// its next flush (at most a second).
	var after Counts
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if after, err = s.Counts(ctx, admin); err != nil {
			t.Fatal(err)
		}
		if after.Connections-before.Connections >= 3 {
			break
		}
	}
	if got := after.Connections - before.Connections; got != 3 || after.PreparesOK {
		t.Errorf("sessions moved by %d (want 3), prepares counted %v (PostgreSQL counts none)", got, after.PreparesOK)
	}
}
