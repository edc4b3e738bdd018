package soak

import (
	"net"
	"os"
	"strings"
	"testing"
)

func TestParseTCP(t *testing.T) {
	// Two lines of /proc/net/tcp: a socket connected to port 3306 (0x0CEA) and the
	// listening end of it (local port 3306, remote port 0), plus one in TIME_WAIT (inode 0).
	table := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:9C40 0100007F:0CEA 01 00000000:00000000 00:00000000 00000000     0        0 4242 1 0000000000000000 20 4 30 10 -1
   1: 0100007F:0CEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4343 1 0000000000000000 100 0 0 10 0
   2: 0100007F:9C41 0100007F:0CEA 06 00000000:00000000 03:00000A2B 00000000     0        0 0 3 0000000000000000
`
	out := map[uint64]int{}
	if err := parseTCP(strings.NewReader(table), 3306, out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[4242] != 0x9C40 {
		t.Fatalf("sockets to 3306: %v, want only inode 4242, from local port %d", out, 0x9C40)
	}
	if err := parseTCP(strings.NewReader("header\n 0: 0100007F:9C40 0100007F:ZZZZ 01 0 0 0 0 0 1 1\n"), 3306, out); err == nil {
		t.Fatal("a malformed port parsed")
	}
}

// This process, connected to a listener of its own: one socket whose remote port is the
// listener's (the accepted end has it as its local port and is not counted).
func TestSampleTreeCountsConnectionsToAPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	port := l.Addr().(*net.TCPAddr).Port
	toPort, err := dbSocketInodes("self", port)
	if err != nil {
		t.Fatal(err)
	}
	s := sampleTree([]int{os.Getpid(), 1 << 30}) // the second pid does not exist
	if s.Procs != 1 || s.countTo(toPort) != 1 || s.FDs < 3 || s.MaxFDs != s.FDs || s.Threads < 1 || s.RSS <= 0 || s.NoFile <= 0 {
		t.Fatalf("sample of this process: %+v; want 1 process, 1 connection to port %d, its descriptors, threads, RSS and ulimit", s, port)
	}
	c.Close()
	toPort, err = dbSocketInodes("self", port)
	if err != nil {
		t.Fatal(err)
	}
	if n := sampleTree([]int{os.Getpid()}).countTo(toPort); n != 0 {
		t.Fatalf("after closing: %d connections to port %d", n, port)
	}
}
