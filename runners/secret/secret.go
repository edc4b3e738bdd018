// Package secret keeps passwords out of everything dbbench prints or writes: every
// password dbbench learns is registered here, and every error line, log line and report
// passes through Scrub on its way out.
package secret

import (
	"io"
	"strings"
	"sync"
)

// Mask replaces a password wherever it would have appeared.
const Mask = "****"

var (
	mu      sync.RWMutex
	secrets []string
)

// Register adds s to the strings Scrub removes. Empty strings are ignored.
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
}

// Scrub returns s with every registered secret replaced by Mask.
func Scrub(s string) string {
	mu.RLock()
	defer mu.RUnlock()
	for _, x := range secrets {
		s = strings.ReplaceAll(s, x, Mask)
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
