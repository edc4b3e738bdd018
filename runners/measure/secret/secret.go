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

	"dbbench/dsn"
)

// Mask replaces a password where it stood.
const Mask = dsn.Mask

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

// RegisterDSN registers the password of d, even when d is too malformed to parse.
func RegisterDSN(d string) { Register(PasswordOf(d)) }

// PasswordOf is the password of a DSN, even one too malformed to parse (dsn.PasswordOf).
func PasswordOf(d string) string { return dsn.PasswordOf(d) }

// Scrub returns s with every registered password masked where it stands as a password.
func Scrub(s string) string {
	mu.RLock()
	defer mu.RUnlock()
	for _, p := range secrets {
		s = dsn.MaskPassword(s, p)
		s = dsn.MaskURLPassword(s, p)
		s = maskEnvPassword(s, p)
	}
	return s
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
func Writer(w io.Writer) io.Writer { return dsn.Writer(w, Scrub) }
