package remote

import (
	"embed"

	"dbbench/runners/internal/words"
)

//go:embed words.tmpl
var wordsFS embed.FS

// say fills one of the app host's sentences (words.tmpl).
var say = words.Load(wordsFS, "words.tmpl").Say
