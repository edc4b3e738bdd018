package topology

import (
	"context"
	"io"
	"net"
	"sync"
)

// Forward makes addr, an address only the role's host reaches (a Go target's admin
// listener on its own loopback), reachable from the runner: it returns a loopback
// address of the runner's whose connections are carried to addr from the role's
// namespace, and a stop that closes the listener and every connection. On loopback,
// addr is reachable as it is.
func (r *Role) Forward(addr string) (string, func() error, error) {
	if r.Netns == "" {
		return addr, func() error { return nil }, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	f := &forwarder{l: l, conns: map[net.Conn]bool{}}
	go f.accept(func(ctx context.Context) (net.Conn, error) { return r.Dial(ctx, "tcp", addr) })
	return l.Addr().String(), f.stop, nil
}

type forwarder struct {
	l     net.Listener
	mu    sync.Mutex
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

func (f *forwarder) accept(dial func(context.Context) (net.Conn, error)) {
	for {
		c, err := f.l.Accept()
		if err != nil {
			return
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			defer c.Close()
			up, err := dial(context.Background())
			if err != nil {
				return
			}
			defer up.Close()
			if !f.track(c, up) {
				return
			}
			done := make(chan struct{})
			go func() { io.Copy(up, c); up.Close(); close(done) }()
			io.Copy(c, up)
			c.Close()
			<-done
			f.untrack(c, up)
		}()
	}
}

// track records an open pair; false once stop has begun.
func (f *forwarder) track(cs ...net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.conns == nil {
		return false
	}
	for _, c := range cs {
		f.conns[c] = true
	}
	return true
}

func (f *forwarder) untrack(cs ...net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range cs {
		delete(f.conns, c)
	}
}

func (f *forwarder) stop() error {
	err := f.l.Close()
	f.mu.Lock()
	for c := range f.conns {
		c.Close()
	}
	f.conns = nil
	f.mu.Unlock()
	f.wg.Wait()
	return err
}
