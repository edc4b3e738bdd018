// Package echo times one-byte round trips over TCP: an echo server on a listener of
// the caller's (on any host or network namespace), and the median of timed echoes to an
// address, which the run's link and the pool check's delay proxy both measure.
package echo

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"dbbench/runners/stats"
)

// Serve answers each byte of the one connection l accepts, until it closes.
func Serve(l net.Listener) {
	c, err := l.Accept()
	if err != nil {
		return
	}
	defer c.Close()
	io.Copy(c, c)
}

// RTT dials addr, sends n+1 one-byte echoes one at a time and gives the median round
// trip, in seconds, of all but the first, which may pay the connection's set-up.
func RTT(ctx context.Context, addr string, n int) (float64, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, fmt.Errorf("echo: %w", err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	b := []byte{0}
	rtts := make([]float64, 0, n+1)
	for range n + 1 {
		t0 := time.Now()
		if _, err := c.Write(b); err != nil {
			return 0, fmt.Errorf("echo: %w", err)
		}
		if _, err := io.ReadFull(c, b); err != nil {
			return 0, fmt.Errorf("echo: %w", err)
		}
		rtts = append(rtts, time.Since(t0).Seconds())
	}
	return stats.Median(rtts[1:]), nil
}
