package secret

import (
	"bytes"
	"fmt"
	"testing"
)

func TestScrubRemovesRegisteredSecrets(t *testing.T) {
	Register("hunter2-Zq8")
	Register("") // must not turn every string into masks
	got := Scrub("dial dbbench:hunter2-Zq8@tcp(127.0.0.1:3306)/dbbench: refused")
	if want := "dial dbbench:****@tcp(127.0.0.1:3306)/dbbench: refused"; got != want {
		t.Fatalf("Scrub = %q, want %q", got, want)
	}
	var buf bytes.Buffer
	fmt.Fprintln(Writer(&buf), "password hunter2-Zq8 twice hunter2-Zq8")
	if got, want := buf.String(), "password **** twice ****\n"; got != want {
		t.Fatalf("Writer wrote %q, want %q", got, want)
	}
}
