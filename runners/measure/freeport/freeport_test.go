package freeport

import (
	"net"
	"os"
	"strconv"
	"testing"
)

func TestBelow(t *testing.T) {
	if lo, err := below("32768\t60999\n"); err != nil || lo != 32768 {
		t.Fatalf("below = %d, %v; want 32768", lo, err)
	}
	for _, bad := range []string{"", "32768", "a b", "1 2 3"} {
		if _, err := below(bad); err == nil {
			t.Errorf("below(%q) accepted", bad)
		}
	}
}

// The port must be usable at once and must not be one the kernel could give an
// outgoing connection.
func TestLoopbackIsFreeAndBelowTheEphemeralRange(t *testing.T) {
	b, err := os.ReadFile(rangeFile)
	if err != nil {
		t.Skipf("no %s on this system: %v", rangeFile, err)
	}
	lo, err := below(string(b))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for range 20 {
		p, err := Loopback()
		if err != nil {
			t.Fatal(err)
		}
		if lo-lowest >= 1000 && (p < lowest || p >= lo) {
			t.Fatalf("port %d is outside [%d, %d)", p, lowest, lo)
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("the port handed out cannot be listened on: %v", err)
		}
		l.Close()
		seen[p] = true
	}
	if len(seen) < 10 {
		t.Errorf("20 picks gave only %d distinct ports: two dbbench processes would collide", len(seen))
	}
}

// A port someone listens on is never handed out.
func TestLoopbackSkipsTakenPorts(t *testing.T) {
	var held []net.Listener
	taken := map[int]bool{}
	for range 200 {
		p, err := Loopback()
		if err != nil {
			t.Fatal(err)
		}
		if taken[p] {
			t.Fatalf("port %d handed out while held", p)
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, l)
		taken[p] = true
	}
	for _, l := range held {
		l.Close()
	}
}
