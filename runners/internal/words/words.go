// Package words fills the sentences a package keeps in text templates beside its code
// (words.tmpl, embedded): what an output says lives apart from the code that supplies
// its figures, and a figure in a sentence comes from data, never from the code.
//
// A template file holds {{define "name"}}…{{end}} blocks wrapped as prose is: Say joins
// a block's lines with single spaces and keeps a blank line as a line break, so a
// sentence reads the same however its file is wrapped.
package words

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"text/template"

	"dbbench/runners/units"
)

// Book is one package's templates.
type Book struct{ t *template.Template }

// Load parses the templates in fsys matching patterns. It panics on a parse error: the
// files are compiled into the binary, so the package's own tests meet the error first.
func Load(fsys fs.FS, patterns ...string) *Book {
	return &Book{template.Must(template.New("").Funcs(funcs).ParseFS(fsys, patterns...))}
}

// funcs are what a sentence may do to its data: a percentage, a list, and a figure
// with its interval (units.Estimate, units.WholeEstimate).
var funcs = template.FuncMap{
	"pct":   Percent,
	"join":  strings.Join,
	"est":   units.Estimate,
	"whole": units.WholeEstimate,
}

// Percent is a fraction as a sentence says it: 0.02 is "2%". Code that builds a
// sentence outside a template says it alike.
func Percent(f float64) string { return fmt.Sprintf("%g%%", 100*f) }

// A is noun after its indefinite article as the letter sounds: "a COM_PING", "an empty
// query". Words that break the spelling rule ("an hour") are not passed here.
func A(noun string) string {
	if noun != "" && strings.ContainsRune("aeiouAEIOU", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// Say is template name filled with data, its lines joined (Load). It panics when the
// template is missing or the data does not fit it: a programming error, which every
// test that renders the sentence finds.
func (b *Book) Say(name string, data any) string {
	var out strings.Builder
	if err := b.t.ExecuteTemplate(&out, name, data); err != nil {
		panic(fmt.Sprintf("words: %v", err))
	}
	return join(out.String())
}

var (
	blankLine = regexp.MustCompile(`[ \t]*\n[ \t]*\n\s*`)
	lineBreak = regexp.MustCompile(`[ \t]*\n[ \t]*`)
)

// join makes one line of each paragraph; paragraphs stay apart by one line break.
func join(s string) string {
	paras := blankLine.Split(strings.TrimSpace(s), -1)
	for i, p := range paras {
		paras[i] = lineBreak.ReplaceAllString(p, " ")
	}
	return strings.Join(paras, "\n")
}
