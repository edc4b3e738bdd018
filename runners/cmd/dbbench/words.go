package main

import (
	"embed"
	"strings"

	"dbbench/runners/internal/words"
)

//go:embed words.tmpl
var wordsFS embed.FS

// say fills one of the command line's sentences (words.tmpl): the longer flags' help
// (flag-NAME) and the usage's exit statuses.
var say = words.Load(wordsFS, "words.tmpl").Say

// wrap breaks s into lines of at most width characters, between words (a word longer
// than width gets a line of its own).
func wrap(s string, width int) string {
	var b strings.Builder
	line := 0
	for _, w := range strings.Fields(s) {
		n := len([]rune(w))
		switch {
		case line == 0:
		case line+1+n > width:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += n
	}
	return b.String()
}
