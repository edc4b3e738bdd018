package roundtrip

import (
	"io"
	"net"
	"slices"
	"testing"
	"time"
)

// The proxy says where the commands it counted came from, connections opened before a
// Reset included: a pool's connections outlive the reset before a capture.
func TestProxyNamesWhereCommandsCameFrom(t *testing.T) {
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	go func() {
		for {
			c, err := up.Accept()
			if err != nil {
				return
			}
			go io.Copy(io.Discard, c)
		}
	}()
	p, err := StartProxyOn("127.0.0.1", up.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	c, err := d.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ping := []byte{1, 0, 0, 0, 0x0e} // one packet, sequence 0: COM_PING
	c.Write(ping)
	waitCount(t, p, "Ping", 1)
	p.Reset()
	if got := p.From(); len(got) != 0 {
		t.Fatalf("From after Reset = %v", got)
	}
	c.Write(ping)
	waitCount(t, p, "Ping", 1)
	if got := p.From(); !slices.Equal(got, []string{"127.0.0.2"}) {
		t.Fatalf("From = %v, want [127.0.0.2]", got)
	}
}

func waitCount(t *testing.T, p *Proxy, name string, n int64) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); p.Counts()[name] < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s counted %d times, want %d", name, p.Counts()[name], n)
		}
	}
}
