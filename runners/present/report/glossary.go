package report

import (
	"html/template"
	"os"
	"path/filepath"
	"regexp"
)

// A report uses terms it does not explain where it uses them (turns, Hodges–Lehmann,
// hold time …); reports/README.md explains them under "Glossary". The text marks such a
// term with term(); report.md and report.html turn the first mark of each entry into a
// link to it, and the others into their words.

// defaultGlossary is reports/README.md from a run directory, reports/runs/<stamp>/ or
// reports/sample/<name>/, when the directory is not inside a checkout (Markdown, HTML).
const defaultGlossary = "../../README.md"

// term marks words as a use of the glossary's entry anchor. The brackets and '#' are
// special neither in markdown nor in HTML, and survive both renderers' escaping.
func term(words, anchor string) string { return "⟦" + words + "#" + anchor + "⟧" }

var termMark = regexp.MustCompile(`⟦([^⟧#]+)#([a-z0-9-]+)⟧`)

// linkTerms replaces the marks of a rendered page in order: the first of each entry by
// link(words, href), every other by its words.
func linkTerms(page, glossary string, link func(words, href string) string) string {
	seen := map[string]bool{}
	return termMark.ReplaceAllStringFunc(page, func(m string) string {
		sub := termMark.FindStringSubmatch(m)
		if seen[sub[2]] {
			return sub[1]
		}
		seen[sub[2]] = true
		return link(sub[1], glossary+"#"+sub[2])
	})
}

func mdTermLink(words, href string) string { return "[" + words + "](" + href + ")" }

// htmlTermLink links words that the page's template has escaped already.
func htmlTermLink(words, href string) string {
	return `<a href="` + template.HTMLEscapeString(href) + `">` + words + "</a>"
}

// glossaryPath is the path from dir to the reports/README.md of the checkout dir is in,
// or defaultGlossary when there is none above it.
func glossaryPath(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return defaultGlossary
	}
	for d := abs; ; d = filepath.Dir(d) {
		readme := filepath.Join(d, "README.md")
		if filepath.Base(d) == "reports" {
			if _, err := os.Stat(readme); err == nil {
				if rel, err := filepath.Rel(abs, readme); err == nil {
					return filepath.ToSlash(rel)
				}
			}
		}
		if d == filepath.Dir(d) {
			return defaultGlossary
		}
	}
}
