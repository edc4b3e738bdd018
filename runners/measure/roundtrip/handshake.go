package roundtrip

import (
	"bytes"
	"sync"

	"dbbench/dsn/protocol"
)

// A connection's authentication, as the proxy sees it: the plugin the server's greeting
// (or a later auth switch) names, and for caching_sha2_password which of its paths the
// server took. The server answers the client's handshake response with AuthMoreData
// 0x03 when the password's hash is in its cache (one round trip), 0x04 when it is not
// (the full path: without TLS the client asks for the server's RSA key and sends the
// password encrypted with it, two more round trips).

// The authentication paths, as results and reports name them, are package protocol's
// (PathCached, PathFull, PathFullRSA, PathTLS).

// handshake follows one connection until its authentication ends. The client's side
// counts the packets it sends before its first command (each one waits for an answer);
// the server's side reads its greeting and answers. Both sides call it, hence the lock.
type handshake struct {
	mu       sync.Mutex
	plugin   string
	fast     bool // AuthMoreData 0x03
	full     bool // AuthMoreData 0x04
	key      bool // the server sent its public key
	tls      bool // the client asked for TLS: nothing after is readable
	trips    int  // client packets before the first command
	done     bool // the server said OK or error
	greeting bool // the greeting has been read
	buf      []byte
}

// clientPacket notes a client packet of the connection phase (sequence id not 0);
// it reports whether the client asked for TLS (an SSLRequest: 32 bytes, CLIENT_SSL set).
func (h *handshake) clientPacket(payload []byte) (tls bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.trips == 0 && len(payload) == 32 && payload[1]&0x08 != 0 {
		h.tls = true
	}
	h.trips++
	return h.tls
}

// serverBytes reads the server's packets of the connection phase from what it sent
// the client, until the server's OK or error ends it.
func (h *handshake) serverBytes(b []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.done || h.tls {
		return
	}
	h.buf = append(h.buf, b...)
	for len(h.buf) >= 4 {
		n := int(h.buf[0]) | int(h.buf[1])<<8 | int(h.buf[2])<<16
		if len(h.buf) < 4+n {
			return
		}
		h.serverPacket(h.buf[4 : 4+n])
		h.buf = h.buf[4+n:]
		if h.done {
			h.buf = nil
			return
		}
	}
}

func (h *handshake) serverPacket(p []byte) {
	if len(p) == 0 {
		return
	}
	if !h.greeting {
		// Protocol 10's greeting ends with the plugin's name, NUL-terminated.
		h.greeting = true
		if parts := bytes.Split(bytes.TrimSuffix(p, []byte{0}), []byte{0}); len(parts) > 1 {
			h.plugin = string(parts[len(parts)-1])
		}
		return
	}
	switch p[0] {
	case 0x00, 0xff:
		h.done = true
	case 0xfe: // auth switch: the plugin's name, NUL-terminated, then its data
		if i := bytes.IndexByte(p[1:], 0); i >= 0 {
			h.plugin = string(p[1 : 1+i])
		}
	case 0x01:
		switch {
		case len(p) == 2 && p[1] == 0x03:
			h.fast = true
		case len(p) == 2 && p[1] == 0x04:
			h.full = true
		default:
			h.key = true
		}
	}
}

// outcome names the authentication the connection took, with the client's packets
// before its first command (each one waited for an answer).
func (h *handshake) outcome() (path string, trips int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pathLocked(), h.trips
}

func (h *handshake) pathLocked() string {
	switch {
	case h.tls:
		return protocol.PathTLS
	case h.plugin == "caching_sha2_password" && h.full && h.key:
		return protocol.PathFullRSA
	case h.plugin == "caching_sha2_password" && h.full:
		return protocol.PathFull
	case h.plugin == "caching_sha2_password" && h.fast:
		return protocol.PathCached
	case h.plugin == "":
		return "unknown"
	}
	return h.plugin
}
