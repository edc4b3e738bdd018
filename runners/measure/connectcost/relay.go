package connectcost

import (
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// relay forwards TCP connections to a server and counts each one's round trips without
// reading the protocol, so TLS does not hide them: a round trip is the server answering
// after the client last sent. The server's greeting, which no client bytes precede, and
// a client's last packet, which no answer follows (COM_QUIT), are none. What the server
// sends unasked can add one: TLS 1.3's session tickets, when they leave after the
// client's next bytes; hence a path's count is its median connection's (measure.go).
type relay struct {
	ln       net.Listener
	upstream string
	wg       sync.WaitGroup
	mu       sync.Mutex
	trips    []int // per connection, in the order they ended
}

func startRelay(upstream string) (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &relay{ln: ln, upstream: upstream}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

func (r *relay) addr() string { return r.ln.Addr().String() }

// ended is how many connections have ended.
func (r *relay) ended() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.trips)
}

// tripsFrom waits (up to a second) until n connections have ended and returns the
// round trips of those after the first from.
func (r *relay) tripsFrom(from, n int) ([]int, error) {
	for deadline := time.Now().Add(time.Second); ; time.Sleep(time.Millisecond) {
		r.mu.Lock()
		if len(r.trips) >= n {
			out := slices.Clone(r.trips[from:n])
			r.mu.Unlock()
			return out, nil
		}
		r.mu.Unlock()
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("connectcost: %d of %d connections ended within a second of their close", r.ended(), n)
		}
	}
}

func (r *relay) close() {
	r.ln.Close()
	r.wg.Wait()
}

func (r *relay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.wg.Add(1)
		go r.serve(c)
	}
}

func (r *relay) serve(client net.Conn) {
	defer r.wg.Done()
	defer client.Close()
	server, err := net.Dial("tcp", r.upstream)
	if err != nil {
		return
	}
	defer server.Close()
	const clientSent, serverSent = 1, 2
	var last atomic.Int32
	trips := 0 // written by this goroutine only, read after done
	defer func() {
		r.mu.Lock()
		r.trips = append(r.trips, trips)
		r.mu.Unlock()
	}()
	done := make(chan struct{})
	go func() {
		// Marked before the bytes go on, so an answer cannot overtake the mark.
		pipe(server, client, func() { last.Store(clientSent) })
		server.Close()
		close(done)
	}()
	pipe(client, server, func() {
		if last.Swap(serverSent) == clientSent {
			trips++
		}
	})
	client.Close()
	<-done
}

// pipe copies from src to dst, calling mark before each chunk is written.
func pipe(dst io.Writer, src io.Reader, mark func()) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			mark()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
