// Package loglines quotes a few lines of a log or a command's output in an error
// message: on one line, joined by " | ", so the error stays one line too.
package loglines

import "strings"

// First is the first n lines of s, trimmed, joined by " | ".
func First(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[:min(n, len(lines))], " | ")
}

// Last is the last n lines of s, trimmed, joined by " | ": where a failing server's log
// says why.
func Last(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}
