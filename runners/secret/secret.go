// Package secret keeps passwords out of everything dbbench prints or writes. Every
// password dbbench learns is registered here, and every error line, log line and report
// passes through Scrub on its way out.
//
// Scrub masks a password only where it stands as a password: in the password field of a
// go-sql-driver DSN (user:PASSWORD@tcp(…)/db) and as the value of the PHP targets'
// DBBENCH_DB_PASSWORD variable. Text elsewhere is never touched: replacing every
// occurrence of a short password ("1", "root") would corrupt unrelated lines ("loaded
// ****000 users") and, by the pattern of its masks, tell a reader the password.
package secret

import (
	"io"
	"sort"
	"strings"
	"sync"
)

// Mask replaces a password where it stood.
const Mask = "****"

// EnvVar is the variable that carries the password to the PHP targets.
const EnvVar = "DBBENCH_DB_PASSWORD"

var (
	mu      sync.RWMutex
	secrets []string // longest first, so a password that contains another is masked whole
)

// Register adds s to the passwords Scrub masks. Empty strings are ignored.
func Register(s string) {
	if s == "" {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	for _, x := range secrets {
		if x == s {
			return
		}
	}
	secrets = append(secrets, s)
	sort.SliceStable(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
}

// RegisterDSN registers the password of dsn, even when dsn is too malformed to parse.
func RegisterDSN(dsn string) { Register(PasswordOf(dsn)) }

// ScrubDSNError masks the password of dsn anywhere in msg, an error about dsn alone
// (the driver's parse error quotes a bad parameter's value, say): there, any text of
// the password is the password.
func ScrubDSNError(msg, dsn string) string {
	if pw := PasswordOf(dsn); pw != "" {
		msg = strings.ReplaceAll(msg, pw, Mask)
	}
	return Scrub(msg)
}

// PasswordOf is the password of dsn as go-sql-driver reads it, even when dsn is too
// malformed to parse: what stands between the first ':' and the last '@' before the
// database name; "" when there is none.
func PasswordOf(dsn string) string {
	at := strings.LastIndex(dsn, "@")
	if at < 0 {
		return ""
	}
	if slash := strings.LastIndex(dsn, "/"); slash >= 0 && slash < at {
		// "@" after the last "/": the database name or a parameter holds it, not the userinfo.
		if strings.Contains(dsn[:slash], "@") {
			at = strings.LastIndex(dsn[:slash], "@")
		}
	}
	if colon := strings.Index(dsn[:at], ":"); colon >= 0 {
		return dsn[colon+1 : at]
	}
	return ""
}

// Scrub returns s with every registered password masked where it stands as a password.
func Scrub(s string) string {
	mu.RLock()
	defer mu.RUnlock()
	for _, p := range secrets {
		s = maskDSNPassword(s, p)
		s = maskEnvPassword(s, p)
	}
	return s
}

// maskDSNPassword masks ":p@" where an address follows, as in user:p@tcp(host:port)/db,
// user:p@unix(/path)/db or user:p@/db.
func maskDSNPassword(s, p string) string {
	field := ":" + p + "@"
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

// maskEnvPassword masks the value of DBBENCH_DB_PASSWORD=p (as an environment entry or a
// php-fpm env[...] line prints it), where the value ends the line, a space or a quote.
func maskEnvPassword(s, p string) string {
	var b strings.Builder
	for _, key := range []string{EnvVar + "=", EnvVar + "] = ", EnvVar + "]="} {
		field := key + p
		b.Reset()
		rest := s
		for {
			i := strings.Index(rest, field)
			if i < 0 {
				b.WriteString(rest)
				break
			}
			after := rest[i+len(field):]
			if after == "" || strings.ContainsAny(after[:1], " \t\n\"'") {
				b.WriteString(rest[:i] + key + Mask)
			} else {
				b.WriteString(rest[:i+len(field)])
			}
			rest = after
		}
		s = b.String()
	}
	return s
}

// Writer wraps w so that what is written through it is scrubbed. Each Write is scrubbed
// on its own, so callers write whole lines (as log and fmt.Fprintln do).
func Writer(w io.Writer) io.Writer { return scrubWriter{w} }

type scrubWriter struct{ w io.Writer }

func (s scrubWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, Scrub(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
