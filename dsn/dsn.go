// Package dsn is the one home of a go-sql-driver DSN: parsed, formatted with its
// password masked, and its password masked where it stands in text. The runner
// (runners/measure/provider, runners/measure/secret), the Go target (go/cmd/gotarget) and the remote
// host code (runners/measure/remote) all use it.
package dsn

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Mask replaces a password where it stood.
const Mask = "****"

// DialTimeout bounds connecting when a DSN sets no timeout: an unreachable host fails
// in seconds, not minutes.
const DialTimeout = 5 * time.Second

// Form is what a DSN must look like, for error messages.
const Form = "user:password@tcp(host:port)/database"

// Parse parses one DSN. Its errors never contain the password, even when the DSN is
// too malformed for the driver to find it; a DSN that names no database is an error.
func Parse(line string) (*mysql.Config, error) {
	cfg, err := parseMySQL(line)
	if err != nil {
		return nil, fmt.Errorf("malformed DSN (want %s): %w", Form, err)
	}
	if cfg.DBName == "" {
		return nil, fmt.Errorf("malformed DSN %s: it names no database (want %s)", Redact(cfg), Form)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DialTimeout
	}
	return cfg, nil
}

// Read parses the DSN file at path: one line. Its errors never contain the password.
func Read(path string) (*mysql.Config, error) {
	line, err := ReadLine(path)
	if err != nil {
		return nil, err
	}
	cfg, err := Parse(line)
	if err != nil {
		return nil, fmt.Errorf("DSN file %s: %w", path, err)
	}
	return cfg, nil
}

// ReadLine reads the DSN file at path, which holds one line: a go-sql-driver DSN, or a
// PostgreSQL URL (protocol.Of). Its errors never contain the line.
func ReadLine(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read DSN file: %w", err)
	}
	line := strings.TrimSpace(string(b))
	switch {
	case line == "":
		return "", fmt.Errorf("DSN file %s is empty (want one line %s)", path, Form)
	case strings.ContainsAny(line, "\r\n"):
		return "", fmt.Errorf("DSN file %s has more than one line (want one line %s)", path, Form)
	}
	return line, nil
}

// MaskURLPassword masks password where it stands in a URL's user part
// (":password@"), as MaskPassword does in a go-sql-driver DSN.
func MaskURLPassword(s, password string) string {
	if password == "" {
		return s
	}
	s = strings.ReplaceAll(s, ":"+password+"@", ":"+Mask+"@")
	// A URL prints its userinfo percent-encoded.
	if esc := strings.TrimPrefix(url.UserPassword("u", password).String(), "u:"); esc != password {
		s = strings.ReplaceAll(s, ":"+esc+"@", ":"+Mask+"@")
	}
	return s
}

// Redact formats cfg as a DSN with its password masked.
func Redact(cfg *mysql.Config) string {
	c := cfg.Clone()
	if c.Passwd != "" {
		c.Passwd = Mask
	}
	return c.FormatDSN()
}

// PasswordOf is the password of dsn as its protocol's driver reads it (line.go), even
// when dsn is too malformed to parse; "" when there is none.
func PasswordOf(dsn string) string { return linesOf(dsn).password(dsn) }

// MaskedIn is msg, a driver's error about line, with line's password masked wherever it
// stands: the message is about this line alone, so any text of the password in it is
// the password.
func MaskedIn(msg, line string) string {
	if pw := PasswordOf(line); pw != "" {
		msg = strings.ReplaceAll(msg, pw, Mask)
	}
	return msg
}

// passwordField is what stands between the first ':' and the last '@' before the
// database name of s, as go-sql-driver reads a DSN's password; "" when there is none.
func passwordField(s string) string {
	at := strings.LastIndex(s, "@")
	if at < 0 {
		return ""
	}
	if slash := strings.LastIndex(s, "/"); slash >= 0 && slash < at {
		// "@" after the last "/": the database name or a parameter holds it, not the userinfo.
		if strings.Contains(s[:slash], "@") {
			at = strings.LastIndex(s[:slash], "@")
		}
	}
	if colon := strings.Index(s[:at], ":"); colon >= 0 {
		return s[colon+1 : at]
	}
	return ""
}

// MaskPassword masks password in s where it stands in a DSN's password field
// (":password@" before an address: user:p@tcp(host:port)/db, user:p@unix(/path)/db,
// user:p@/db), and nowhere else: replacing every occurrence of a short password ("1",
// "root") would corrupt unrelated text and, by the pattern of its masks, reveal it.
func MaskPassword(s, password string) string {
	if password == "" {
		return s
	}
	field := ":" + password + "@"
	var b strings.Builder
	for {
		i := strings.Index(s, field)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		rest := s[i+len(field):]
		if startsAddress(rest) {
			b.WriteString(s[:i] + ":" + Mask + "@")
		} else {
			b.WriteString(s[:i+len(field)])
		}
		s = rest
	}
}

// startsAddress says whether s begins with a DSN's address: "/" (no network given) or a
// network name followed by "(" (tcp(, unix(, tcp6( …).
func startsAddress(s string) bool {
	if strings.HasPrefix(s, "/") {
		return true
	}
	for i, r := range s {
		switch {
		case r == '(':
			return i > 0
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return false
}

// RedactURL is a URL (ssh://user:password@host:port) with the password of its user
// part masked: an error names the URL, and a password typed into it must not reach a log.
func RedactURL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		scheme, rest = "", s
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return s
	}
	user, _, hasPass := strings.Cut(rest[:at], ":")
	if !hasPass {
		return s
	}
	if ok {
		scheme += "://"
	}
	return scheme + user + ":" + Mask + rest[at:]
}

// Writer wraps w so that each Write passes through mask first: the one masking writer
// the runner's logs (runners/measure/secret) and the Go target's stderr (go/cmd/gotarget) use.
// Each Write is masked on its own, so callers write whole lines (as log and
// fmt.Fprintln do).
func Writer(w io.Writer, mask func(string) string) io.Writer { return maskWriter{w, mask} }

type maskWriter struct {
	w    io.Writer
	mask func(string) string
}

func (m maskWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(m.w, m.mask(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
