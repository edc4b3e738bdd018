package soak

import (
	"embed"

	"dbbench/runners/internal/words"
)

//go:embed words.tmpl
var wordsFS embed.FS

// say fills one of the soak's sentences (words.tmpl): the report's paragraphs, the
// verdicts' reasons and the log's longer lines.
var say = words.Load(wordsFS, "words.tmpl").Say
