package roundtrip

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"dbbench/dsn"
	"dbbench/dsn/protocol"
)

// commandNames spells MySQL protocol command bytes as the general log does, plus the
// commands the general log never shows.
var commandNames = map[byte]string{
	0x01: "Quit", 0x02: "Init DB", 0x03: "Query", 0x0e: "Ping",
	0x11: "Change user", 0x16: "Prepare", 0x17: "Execute", 0x18: "Long Data",
	0x19: "Close stmt", 0x1a: "Reset stmt", 0x1b: "Set option", 0x1c: "Fetch",
	0x1f: "Reset connection",
}

// Proxy forwards TCP connections to a database server and counts the commands clients
// send. On MySQL's protocol every client packet with sequence id 0 starts a command, and
// its first byte says which; on PostgreSQL's (postgres.go) every frontend message is
// counted by its type. It assumes no TLS and no protocol compression (dbbench uses
// neither).
type Proxy struct {
	upstream string
	postgres bool // PostgreSQL's protocol, not MySQL's
	ln       net.Listener
	mu       sync.Mutex
	counts   map[string]int64
	toServer int64 // bytes, client to server
	toClient int64 // bytes, server to client
	// waited is the time commands waited for the server's answer, summed: from a
	// command's last byte forwarded to the first byte of its answer. One-way commands
	// (Close stmt, Quit, Long Data) get none. trips counts those waits: the round trips.
	waited time.Duration
	trips  int64
	// from holds the addresses of the clients counted since the last Reset: where the
	// commands came from (the app's address, on any topology).
	from map[string]bool
	// auth counts the connections by the authentication path they took (handshake.go),
	// authTrips the client's handshake packets, each of which waits for an answer.
	auth      map[string]int64
	authTrips int64
	conns     map[net.Conn]struct{}
	wg        sync.WaitGroup
}

// StartProxyOn listens on a free port of host (an address of this machine the clients
// reach) and forwards to upstream, a MySQL server.
func StartProxyOn(host, upstream string) (*Proxy, error) { return startProxy(host, upstream, false) }

// StartPostgresProxyOn is StartProxyOn for a PostgreSQL server (or a pooler in front of
// one): it counts the frontend messages of protocol 3 by name (postgres.go).
func StartPostgresProxyOn(host, upstream string) (*Proxy, error) {
	return startProxy(host, upstream, true)
}

func startProxy(host, upstream string, postgres bool) (*Proxy, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("roundtrip proxy: %w", err)
	}
	p := &Proxy{upstream: upstream, postgres: postgres, ln: ln, counts: map[string]int64{}, from: map[string]bool{}, auth: map[string]int64{}, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's listening address (127.0.0.1:PORT).
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Counts returns a copy of the counts since the last Reset. "Connect" is the number of
// client connections accepted.
func (p *Proxy) Counts() map[string]int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int64, len(p.counts))
	for k, v := range p.counts {
		out[k] = v
	}
	return out
}

// Bytes returns the bytes forwarded each way since the last Reset.
func (p *Proxy) Bytes() (toServer, toClient int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.toServer, p.toClient
}

// Trips is how many times a client waited for the server's answer since the last
// Reset: the round trips, over every connection (a handshake's included).
func (p *Proxy) Trips() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.trips
}

// Waited is how long commands waited for the server's answers since the last Reset,
// summed over every connection: the time a connection is held by the database and the
// wire, which grows by one round trip time per command answered.
func (p *Proxy) Waited() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waited
}

// From lists the addresses of the clients whose connections or commands were counted
// since the last Reset, sorted.
func (p *Proxy) From() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.from))
}

// Auth returns the connections counted since the last Reset by the authentication path
// they took, and the round trips of their handshakes after TCP's (one per packet the
// client sent before its first command; none seen after a TLS request).
func (p *Proxy) Auth() (paths map[string]int64, trips int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.auth), p.authTrips
}

// Reset sets every count to zero.
func (p *Proxy) Reset() {
	p.mu.Lock()
	p.counts = map[string]int64{}
	p.from = map[string]bool{}
	p.auth = map[string]int64{}
	p.authTrips = 0
	p.toServer, p.toClient, p.waited, p.trips = 0, 0, 0, 0
	p.mu.Unlock()
}

// Close stops accepting, cuts every open connection and waits for the forwarders.
func (p *Proxy) Close() error {
	err := p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

// add counts a command (or a connection) of a client at address from.
func (p *Proxy) add(name, from string) {
	p.mu.Lock()
	p.counts[name]++
	p.from[from] = true
	p.mu.Unlock()
}

// peer is the IP a client connected from.
func peer(c net.Conn) string {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	return c.RemoteAddr().String()
}

func (p *Proxy) track(c net.Conn, on bool) {
	p.mu.Lock()
	if on {
		p.conns[c] = struct{}{}
	} else {
		delete(p.conns, c)
	}
	p.mu.Unlock()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.add("Connect", peer(client))
		p.wg.Add(1)
		go p.serve(client)
	}
}

func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	server, err := net.Dial("tcp", p.upstream)
	if err != nil {
		client.Close()
		return
	}
	p.track(client, true)
	p.track(server, true)
	defer func() {
		p.track(client, false)
		p.track(server, false)
	}()
	var asked atomic.Int64 // when the command now waiting for its answer was sent, unix ns; 0: none
	var h *handshake       // MySQL's: PostgreSQL's startup is counted as messages
	if !p.postgres {
		h = &handshake{}
	}
	done := make(chan struct{})
	go func() {
		io.Copy(countingWriter{client, p, &asked, h}, server)
		client.Close()
		close(done)
	}()
	if p.postgres {
		p.countPostgres(client, server, &asked)
	} else {
		p.countAndForward(client, server, &asked, h)
	}
	server.Close()
	<-done
}

// countAndForward copies client packets to the server, counting each command, and
// notes when each command that gets an answer was sent (asked). The packets before the
// first command are the handshake's (h); after a TLS request it copies without reading.
func (p *Proxy) countAndForward(client, server net.Conn, asked *atomic.Int64, h *handshake) {
	r := bufio.NewReaderSize(client, 64<<10)
	from := peer(client)
	var header [4]byte
	authed := false
	noteAuth := func() {
		if !authed {
			authed = true
			path, trips := h.outcome()
			p.mu.Lock()
			p.auth[path]++
			p.authTrips += int64(trips)
			p.mu.Unlock()
		}
	}
	defer noteAuth()
	for {
		if _, err := io.ReadFull(r, header[:]); err != nil {
			return
		}
		n := int(header[0]) | int(header[1])<<8 | int(header[2])<<16
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return
		}
		command := ""
		if header[3] != 0 && !authed && h.clientPacket(payload) {
			noteAuth()
			if _, err := server.Write(append(header[:], payload...)); err == nil {
				io.Copy(server, r)
			}
			return
		}
		if header[3] == 0 && n > 0 {
			noteAuth()
			name, ok := commandNames[payload[0]]
			if !ok {
				name = fmt.Sprintf("0x%02x", payload[0])
			}
			p.add(name, from)
			command = name
		}
		// Noted before the write: a fast server's answer could otherwise arrive first
		// and its wait go uncounted.
		if command != "" && protocol.Waits(command) {
			asked.Store(time.Now().UnixNano())
		}
		p.mu.Lock() // before the write, as its command is: see countingWriter
		p.toServer += int64(4 + n)
		p.mu.Unlock()
		if _, err := server.Write(append(header[:], payload...)); err != nil {
			return
		}
	}
}

// countingWriter counts what the server sends the client, and the wait of the command
// the first bytes answer.
type countingWriter struct {
	w     io.Writer
	p     *Proxy
	asked *atomic.Int64
	h     *handshake
}

func (c countingWriter) Write(b []byte) (int, error) {
	if c.h != nil {
		c.h.serverBytes(b)
	}
	var wait time.Duration
	var trip int64
	if since := c.asked.Swap(0); since != 0 {
		wait, trip = time.Duration(time.Now().UnixNano()-since), 1
	}
	// Counted before the client has the answer: a caller that reads Counts or calls
	// Reset once its request returns must find this answer counted, and counted before
	// a Reset, not after it (a warm-up's round trip counted in the next window).
	c.p.mu.Lock()
	c.p.toClient += int64(len(b))
	c.p.waited += wait
	c.p.trips += trip
	c.p.mu.Unlock()
	return c.w.Write(b)
}

// RewriteDSN returns dsn with its host:port replaced by addr (to route it through a
// Proxy): a go-sql-driver DSN, or a PostgreSQL URL (dsn.WithAddr).
func RewriteDSN(line, addr string) (string, error) {
	s, err := dsn.WithAddr(line, addr)
	if err != nil {
		return "", fmt.Errorf("roundtrip: %w", err)
	}
	return s, nil
}
