// Package dsn reads the target's database address from the DSN file and keeps the
// password out of everything the target prints. It is a small local copy of what
// dbbench/runners does with secret and provider.Redact: the targets must not depend on
// the runner's module.
package dsn

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Mask replaces the password wherever it would have appeared.
const Mask = "****"

// dialTimeout bounds connecting, so a database that is gone fails a request in seconds.
const dialTimeout = 5 * time.Second

// Read parses the file at path: one line in go-sql-driver form,
// user:password@tcp(host:port)/database. Its errors never contain the password.
func Read(path string) (*mysql.Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read DSN file: %w", err)
	}
	line := strings.TrimSpace(string(b))
	if line == "" {
		return nil, fmt.Errorf("DSN file %s is empty (want one line user:password@tcp(host:port)/database)", path)
	}
	if strings.ContainsAny(line, "\r\n") {
		return nil, fmt.Errorf("DSN file %s has more than one line (want one line user:password@tcp(host:port)/database)", path)
	}
	cfg, err := mysql.ParseDSN(line)
	if err != nil {
		// The driver's message may quote part of the line; the password is whatever sits
		// between the first ':' and the last '@', so mask that before showing it.
		// The message is about this line alone, so any text of the password in it is the
		// password (the driver quotes a bad parameter's value, say).
		msg := err.Error()
		if pw := guessPassword(line); pw != "" {
			msg = strings.ReplaceAll(msg, pw, Mask)
		}
		return nil, fmt.Errorf("DSN file %s is malformed (want user:password@tcp(host:port)/database): %s", path, msg)
	}
	if cfg.DBName == "" {
		return nil, fmt.Errorf("DSN %s in %s names no database (want user:password@tcp(host:port)/database)", Redact(cfg), path)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = dialTimeout
	}
	return cfg, nil
}

// Redact formats cfg as a DSN with the password masked.
func Redact(cfg *mysql.Config) string {
	c := cfg.Clone()
	if c.Passwd != "" {
		c.Passwd = Mask
	}
	return c.FormatDSN()
}

// Scrubber returns a function that masks cfg's password in s, for error text that comes
// from drivers and ORMs.
func Scrubber(cfg *mysql.Config) func(s string) string {
	pw := cfg.Passwd
	return func(s string) string { return scrub(s, pw) }
}

// scrub masks password where it stands in a DSN's password field (":password@" before an
// address: tcp(…), unix(…) or "/"), and nowhere else: replacing every occurrence of a
// short password would corrupt unrelated text and, by its masks, reveal the password.
// runners/secret does the same for the runner, which the targets do not import.
func scrub(s, password string) string {
	if password == "" {
		return s
	}
	field := ":" + password + "@"
	var b strings.Builder
	for {
		i := strings.Index(s, field)
		if i < 0 {
			return b.String() + s
		}
		rest := s[i+len(field):]
		b.WriteString(s[:i])
		if strings.HasPrefix(rest, "/") || strings.HasPrefix(rest, "tcp") || strings.HasPrefix(rest, "unix(") {
			b.WriteString(":" + Mask + "@")
		} else {
			b.WriteString(field)
		}
		s = rest
	}
}

func guessPassword(line string) string {
	at := strings.LastIndex(line, "@")
	colon := strings.Index(line, ":")
	if at < 0 || colon < 0 || colon >= at {
		return ""
	}
	return line[colon+1 : at]
}
