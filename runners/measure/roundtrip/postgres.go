package roundtrip

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"
)

// pgMessages names PostgreSQL's frontend messages (protocol 3) by their type byte, as
// the protocol's documentation does ("Message Formats"). Password carries every
// authentication answer: a password, SASLInitialResponse and SASLResponse.
var pgMessages = map[byte]string{
	'P': "Parse", 'B': "Bind", 'D': "Describe", 'E': "Execute", 'S': "Sync", 'H': "Flush",
	'Q': "Query", 'C': "Close", 'X': "Terminate", 'p': "Password", 'F': "FunctionCall",
	'd': "CopyData", 'c': "CopyDone", 'f': "CopyFail",
}

// pgAnswered are the messages after which a client waits for the server: the extended
// protocol's Parse, Bind, Describe, Execute and Close are answered only at the Sync (or
// Flush) that follows them, so a batch of them costs one round trip.
var pgAnswered = map[string]bool{
	"Sync": true, "Flush": true, "Query": true, "Password": true, "FunctionCall": true,
	"Startup": true, "SSLRequest": true, "GSSENCRequest": true,
}

// The startup packets, which have a length and a code but no type byte.
const (
	pgSSLRequest    = 80877103
	pgGSSENCRequest = 80877104
	pgCancelRequest = 80877102
	pgMaxStartup    = 10000 // the server's own limit on a startup packet
)

// countPostgres copies a client's messages to the server, counting each by name, and
// notes when each message that gets an answer was sent (asked). Before the startup
// message, packets have no type byte; a client that turns to TLS is copied unread.
func (p *Proxy) countPostgres(client, server net.Conn, asked *atomic.Int64) {
	r := bufio.NewReaderSize(client, 64<<10)
	from := peer(client)
	started := false
	for {
		msg, name, ok := readPostgres(r, started)
		if !ok {
			if msg != nil { // not a message: TLS or garbage, which the server judges
				if _, err := server.Write(msg); err == nil {
					io.Copy(server, r)
				}
			}
			return
		}
		started = started || name == "Startup"
		p.add(name, from)
		// Noted before the write: a fast server's answer could otherwise arrive first
		// and its round trip go uncounted.
		if pgAnswered[name] {
			asked.Store(time.Now().UnixNano())
		}
		p.mu.Lock() // before the write, as its command is (proxy.go, countingWriter)
		p.toServer += int64(len(msg))
		p.mu.Unlock()
		if _, err := server.Write(msg); err != nil {
			return
		}
	}
}

// readPostgres reads one frontend message: the whole message and its name, or, when
// the bytes are no message (ok false), what was read of them (nil at the end).
func readPostgres(r *bufio.Reader, started bool) (msg []byte, name string, ok bool) {
	head := 5 // type byte and length
	if !started {
		head = 4 // length only
	}
	hdr := make([]byte, head)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, "", false
	}
	n := int(binary.BigEndian.Uint32(hdr[head-4:]))
	if n < 4 || (!started && (n < 8 || n > pgMaxStartup)) || n > 1<<30 {
		return hdr, "", false
	}
	body := make([]byte, n-4)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, "", false
	}
	msg = append(hdr, body...)
	if started {
		name, known := pgMessages[hdr[0]]
		if !known {
			name = fmt.Sprintf("0x%02x", hdr[0])
		}
		return msg, name, true
	}
	switch binary.BigEndian.Uint32(body[:4]) {
	case pgSSLRequest:
		return msg, "SSLRequest", true
	case pgGSSENCRequest:
		return msg, "GSSENCRequest", true
	case pgCancelRequest:
		return msg, "CancelRequest", true
	}
	return msg, "Startup", true
}
