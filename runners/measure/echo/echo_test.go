package echo

import (
	"context"
	"net"
	"testing"
	"time"
)

// An echo on loopback comes back, and takes more than nothing and less than a second.
func TestRTTOnLoopback(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go Serve(l)
	rtt, err := RTT(context.Background(), l.Addr().String(), 20)
	if err != nil || rtt <= 0 || rtt > time.Second.Seconds() {
		t.Errorf("RTT = %g s, %v; want a loopback round trip", rtt, err)
	}
}

// Nothing listening is an error, not a round trip.
func TestRTTRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	if _, err := RTT(context.Background(), addr, 5); err == nil {
		t.Error("no error with nothing listening")
	}
}
