package soak

import (
	"strings"
	"testing"
)

// A connection counts as outside when it was listed at both ends of the round and its
// client port is no target's socket: a per-request connection seen once, a target's
// own, and one that closed meanwhile are not; a Unix socket's (port 0) is.
func TestOutsideCountsWhatNoTargetHolds(t *testing.T) {
	before := map[int64]dbConn{
		1: {port: 40001, stmts: 3}, // a target's pooled connection
		2: {port: 40002, stmts: 7}, // another client's, held across the round
		3: {port: 40003, stmts: 1}, // a per-request connection, gone by the end
		4: {port: 0, stmts: 2},     // a client on the Unix socket
	}
	after := map[int64]dbConn{1: {port: 40001}, 2: {port: 40002}, 4: {}, 5: {port: 40005}}
	conns, stmts := outside(before, after, map[int]bool{40001: true})
	if conns != 2 || stmts != 9 {
		t.Errorf("outside = %d connections, %d statements; want 2 and 9", conns, stmts)
	}
}

func TestClientPort(t *testing.T) {
	for host, want := range map[string]int{"127.0.0.1:54321": 54321, "[::1]:3307": 3307, "localhost": 0, "10.77.3.2": 0} {
		if got := clientPort(host); got != want {
			t.Errorf("clientPort(%q) = %d, want %d", host, got, want)
		}
	}
}

// Behind a proxy the server lists the proxy's ports, none of the targets': then nothing
// can be told apart. With no target connection there is nothing to tell either way.
func TestSeesPorts(t *testing.T) {
	listed := map[int64]dbConn{1: {port: 50001}, 2: {port: 50002}}
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
