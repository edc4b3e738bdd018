// Package docs checks that the figures the READMEs quote from a committed sample are the
// sample's. A passage that quotes a sample is marked in its README:
//
//	<!-- quote reports/sample/quick/report.md -->
//	> **1. What a layer costs …** … 0.81× [0.78, 0.83] (GORM) …
//	<!-- /quote -->
//
// A quote's text, cut at each "…", must stand in the sample word for word (quote marks
// ">" and markdown emphasis left out, white space folded). A passage that only cites
// figures is marked `<!-- figures FILE -->` … `<!-- /figures -->`: every number in it
// must stand in the sample as a number. FILE is relative to the repository.
package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Passage is one marked passage of a README.
type Passage struct {
	README, Sample string
	Line           int // of the opening marker
	Kind           string
	Text           string
}

var marker = regexp.MustCompile(`<!-- (quote|figures) (\S+) -->`)

// Passages reads the marked passages of a README.
func Passages(root, readme string) ([]Passage, error) {
	b, err := os.ReadFile(filepath.Join(root, readme))
	if err != nil {
		return nil, err
	}
	var out []Passage
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		m := marker.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		p := Passage{README: readme, Sample: m[2], Line: i + 1, Kind: m[1]}
		end := "<!-- /" + m[1] + " -->"
		var body []string
		for i++; i < len(lines) && !strings.Contains(lines[i], end); i++ {
			body = append(body, lines[i])
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: no %s", readme, p.Line, end)
		}
		p.Text = strings.Join(body, "\n")
		out = append(out, p)
	}
	return out, nil
}

// Check says what of a passage its sample does not hold; nil when all of it does.
func Check(root string, p Passage) []string {
	b, err := os.ReadFile(filepath.Join(root, p.Sample))
	if err != nil {
		return []string{err.Error()}
	}
	sample := fold(string(b))
	var missing []string
	switch p.Kind {
	case "quote":
		for _, part := range strings.Split(fold(p.Text), "…") {
			if part = strings.TrimSpace(part); part != "" && !strings.Contains(sample, part) {
				missing = append(missing, part)
			}
		}
	case "figures":
		have := map[string]bool{}
		for _, n := range number.FindAllString(sample, -1) {
			have[n] = true
		}
		for _, n := range number.FindAllString(p.Text, -1) {
			if !have[n] {
				missing = append(missing, n)
			}
		}
	}
	return missing
}

var (
	number   = regexp.MustCompile(`\d+(?:[.,]\d+)*`)
	emphasis = regexp.MustCompile(`\*\*|__`)
	space    = regexp.MustCompile(`\s+`)
)

// fold drops quote marks and emphasis and folds white space.
func fold(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		lines = append(lines, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), ">"))) // ">" alone is a quote's blank line
	}
	s = emphasis.ReplaceAllString(strings.Join(lines, " "), "")
	return space.ReplaceAllString(s, " ")
}
