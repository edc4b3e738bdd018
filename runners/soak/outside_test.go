package soak

import (
	"strings"
	"testing"

	"dbbench/runners/measure/servers"
)

// A connection counts as outside when it was listed at both ends of the round and its
// client port is no target's socket: a per-request connection seen once, a target's
// own, and one that closed meanwhile are not; a Unix socket's (port 0) is.
func TestOutsideCountsWhatNoTargetHolds(t *testing.T) {
	before := map[int64]servers.Client{
		1: {Port: 40001, Stmts: 3, Memory: 100}, // a target's pooled connection
		2: {Port: 40002, Stmts: 7, Memory: 20},  // another client's, held across the round
		3: {Port: 40003, Stmts: 1, Memory: 300}, // a per-request connection, gone by the end
		4: {Port: 0, Stmts: 2, Memory: 4},       // a client on the Unix socket
	}
	after := map[int64]servers.Client{1: {Port: 40001}, 2: {Port: 40002}, 4: {}, 5: {Port: 40005}}
	conns, stmts, memory := outside(before, after, map[int]bool{40001: true})
	if conns != 2 || stmts != 9 || memory != 20 {
		t.Errorf("outside = %d connections, %d statements, %d bytes; want 2, 9 and 20 (the largest)", conns, stmts, memory)
	}
}

// Behind a proxy the server lists the proxy's ports, none of the targets': then nothing
// can be told apart. With no target connection there is nothing to tell either way.
func TestSeesPorts(t *testing.T) {
	listed := map[int64]servers.Client{1: {Port: 50001}, 2: {Port: 50002}}
	if seesPorts(listed, map[int]bool{40001: true}) {
		t.Error("none of the targets' ports listed: want false")
	}
	if !seesPorts(listed, map[int]bool{50002: true}) || !seesPorts(listed, map[int]bool{}) {
		t.Error("a target's port listed, or no target connection: want true")
	}
}

// Rising names the connection and statement series that rose unresolved, and no other.
func TestRisingNamesWhatTheDatabaseHolds(t *testing.T) {
	f := &File{Database: &Role{Series: []*Series{
		{Name: "prepared_stmt_count", Label: "Prepared_stmt_count", Verdict: &Verdict{Verdict: Rising}},
		{Name: "outside_connections", Label: "connections no target holds", Verdict: &Verdict{Verdict: Unresolved}},
		{Name: "mariadbd_rss", Label: "mariadbd RSS", Verdict: &Verdict{Verdict: Rising}},
		{Name: "threads_connected", Label: "Threads_connected", Verdict: &Verdict{Verdict: Settling}},
	}}}
	got := f.Rising()
	if len(got) != 2 || !strings.HasSuffix(got[0], "Prepared_stmt_count") || !strings.HasSuffix(got[1], "connections no target holds") {
		t.Errorf("Rising = %q, want the statements and the outside connections", got)
	}
}

// A server's own figure that holds what clients hold rises the soak's exit by its Held
// flag, whatever its name (PostgreSQL's idle_in_transaction); one without it does not.
func TestRisingReadsHeld(t *testing.T) {
	f := &File{Database: &Role{Series: []*Series{
		{Name: "idle_in_transaction", Label: "idle in transaction", Held: true, Verdict: &Verdict{Verdict: Rising}},
		{Name: "sessions_abandoned", Label: "sessions_abandoned", Verdict: &Verdict{Verdict: Rising}},
	}}}
	if got := f.Rising(); len(got) != 1 || !strings.HasSuffix(got[0], "idle in transaction") {
		t.Errorf("Rising = %q, want idle in transaction alone", got)
	}
}
