package report

import (
	"embed"

	"dbbench/runners/internal/words"
)

//go:embed words.tmpl
var wordsFS embed.FS

// say fills one of the report's sentences (words.tmpl). A sentence says a term as
// term does, ⟦word#anchor⟧, written into the template.
var say = words.Load(wordsFS, "words.tmpl").Say
