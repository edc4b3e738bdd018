package compare

import (
	"embed"

	"dbbench/runners/internal/words"
)

//go:embed words.tmpl
var wordsFS embed.FS

// say fills one of compare's notes (words.tmpl).
var say = words.Load(wordsFS, "words.tmpl").Say
