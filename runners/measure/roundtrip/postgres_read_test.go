package roundtrip

import (
	"bufio"
	"bytes"
	"testing"
)

// Frontend messages as readPostgres names them: the startup packets by their code, the
// typed messages by their byte, and bytes that are no message (TLS's ClientHello)
// handed back unread.
func TestReadPostgresMessages(t *testing.T) {
	ssl := []byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f}
	startup := append([]byte{0, 0, 0, 13, 0, 3, 0, 0}, "user\x00"...)
	sync := []byte{'S', 0, 0, 0, 4}
	r := bufio.NewReader(bytes.NewReader(bytes.Join([][]byte{ssl, startup}, nil)))
	for _, want := range []string{"SSLRequest", "Startup"} {
		if _, name, ok := readPostgres(r, false); !ok || name != want {
			t.Errorf("read %q, %v; want %s", name, ok, want)
		}
	}
	r = bufio.NewReader(bytes.NewReader(append(sync, 'Z', 0, 0, 0, 4)))
	if msg, name, ok := readPostgres(r, true); !ok || name != "Sync" || !bytes.Equal(msg, sync) {
		t.Errorf("read %q %v %v; want Sync", name, msg, ok)
	}
	if _, name, ok := readPostgres(r, true); !ok || name != "0x5a" {
		t.Errorf("an unknown type read as %q, %v", name, ok)
	}
	hello := []byte{0x16, 0x03, 0x01, 0x02, 0x00, 0x01}
	if msg, _, ok := readPostgres(bufio.NewReader(bytes.NewReader(hello)), false); ok || !bytes.Equal(msg, hello[:4]) {
		t.Errorf("a TLS ClientHello read as a message: %v %v", msg, ok)
	}
}
