package dsn

import (
	"strings"
	"testing"

	"dbbench/dsn/protocol"
)

// Each protocol's lines are checked, pointed elsewhere and taken apart by its own file;
// errors never show the password.
func TestLinesOfEitherProtocol(t *testing.T) {
	const pw = "Pw-7x"
	for _, c := range []struct {
		line, addr, moved, check string
		tcp                      TCP
	}{
		{"u:" + pw + "@tcp(127.0.0.1:3306)/db?interpolateParams=true", "127.0.0.1:9",
			"u:" + pw + "@tcp(127.0.0.1:9)/db?interpolateParams=true", "",
			TCP{"127.0.0.1", "3306", "db", "u", pw}},
		{"postgres://u:" + pw + "@127.0.0.1:5432/db?sslmode=disable", "127.0.0.1:9",
			"postgres://u:" + pw + "@127.0.0.1:9/db?sslmode=disable", "",
			TCP{"127.0.0.1", "5432", "db", "u", pw}},
		{"u:" + pw + "@tcp(127.0.0.1:3306)/", "127.0.0.1:9", "u:" + pw + "@tcp(127.0.0.1:9)/", "names no database",
			TCP{"127.0.0.1", "3306", "", "u", pw}},
		{"postgres://u:" + pw + "@127.0.0.1:5432/", "127.0.0.1:9", "postgres://u:" + pw + "@127.0.0.1:9/", "names no host or no database",
			TCP{"127.0.0.1", "5432", "", "u", pw}},
	} {
		if got, err := WithAddr(c.line, c.addr); err != nil || got != c.moved {
			t.Errorf("WithAddr(%s) = %q, %v; want %q", c.line, got, err, c.moved)
		}
		err := Check(c.line)
		if (c.check == "") != (err == nil) || err != nil && (!strings.Contains(err.Error(), c.check) || strings.Contains(err.Error(), pw)) {
			t.Errorf("Check(%s) = %v; want %q, never the password", c.line, err, c.check)
		}
		if got, err := TCPOf(c.line); err != nil || got != c.tcp {
			t.Errorf("TCPOf(%s) = %+v, %v; want %+v", c.line, got, err, c.tcp)
		}
	}
	bad := "u:" + pw + "@tcp(127.0.0.1:3306/db?x=" + pw
	if _, err := WithAddr(bad, "x"); err == nil || strings.Contains(err.Error(), pw) {
		t.Errorf("WithAddr of a malformed DSN: %v; want an error without the password", err)
	}
}

// Every protocol has its lines' reader: a protocol added without one fails here, not
// with a nil interface at run time.
func TestEveryProtocolHasLines(t *testing.T) {
	for _, p := range protocol.All {
		if byProtocol[p] == nil {
			t.Errorf("protocol %s has no lines in byProtocol (line.go)", p)
		}
	}
}
