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
//
// A marker may also stand inside a paragraph, list item or table cell, so that one
// sentence is checked without splitting the paragraph it stands in (a line that starts
// with "<!--" would end a markdown paragraph):
//
//	… a GORM insert kept <!-- figures reports/sample/ops/report.md -->0.55× [0.54, 0.57]
//	of database/sql's throughput<!-- /figures -->, against …
//
// The passage is the text between the two markers, wherever they stand.
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

// Passages reads the marked passages of a README: the text between each opening marker
// and its closing one, on the same line or on the lines between.
func Passages(root, readme string) ([]Passage, error) {
	b, err := os.ReadFile(filepath.Join(root, readme))
	if err != nil {
		return nil, err
	}
	text := string(b)
	var out []Passage
	for at := 0; ; {
		m := marker.FindStringSubmatchIndex(text[at:])
		if m == nil {
			return out, nil
		}
		p := Passage{README: readme, Sample: text[at+m[4] : at+m[5]], Kind: text[at+m[2] : at+m[3]],
			Line: 1 + strings.Count(text[:at+m[0]], "\n")}
		body := text[at+m[1]:]
		end := "<!-- /" + p.Kind + " -->"
		i := strings.Index(body, end)
		if i < 0 {
			return nil, fmt.Errorf("%s:%d: no %s", readme, p.Line, end)
		}
		if marker.MatchString(body[:i]) {
			return nil, fmt.Errorf("%s:%d: another marker opens before %s", readme, p.Line, end)
		}
		p.Text = body[:i]
		out = append(out, p)
		at += m[1] + i + len(end)
	}
}

// Misplaced says where a marker would not stay invisible in the rendered README. In
// CommonMark a line that starts with "<!--" opens an HTML block, which ends a paragraph
// and runs to the end of the line: so a marker that starts a line must be alone on it,
// with a blank line before it if it opens a passage and after it if it closes one.
// Anywhere else in a line a marker is inline HTML and shows nothing.
func Misplaced(root, readme string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(root, readme))
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(b), "\n")
	blank := func(i int) bool { return i < 0 || i >= len(lines) || strings.TrimSpace(lines[i]) == "" }
	var out []string
	for i, l := range lines {
		t := strings.TrimSpace(l)
		m := marker.FindStringIndex(t)
		opening := m != nil && m[0] == 0
		closing := strings.HasPrefix(t, "<!-- /quote -->") || strings.HasPrefix(t, "<!-- /figures -->")
		alone := opening && m[1] == len(t) || t == "<!-- /quote -->" || t == "<!-- /figures -->"
		switch {
		case !opening && !closing:
		case !alone:
			out = append(out, fmt.Sprintf("%s:%d: a marker that starts a line must be alone on it", readme, i+1))
		case opening && !blank(i-1):
			out = append(out, fmt.Sprintf("%s:%d: a marker alone on its line must follow a blank line", readme, i+1))
		case closing && !blank(i+1):
			out = append(out, fmt.Sprintf("%s:%d: a closing marker alone on its line must be followed by a blank line", readme, i+1))
		}
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
	link     = regexp.MustCompile(`\[([^\]]*)\]\([^)\s]*\)`)
	space    = regexp.MustCompile(`\s+`)
)

// fold drops quote marks, emphasis and links' targets (a quote quotes what a reader
// sees) and folds white space.
func fold(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		lines = append(lines, strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), ">"))) // ">" alone is a quote's blank line
	}
	s = emphasis.ReplaceAllString(strings.Join(lines, " "), "")
	s = link.ReplaceAllString(s, "$1")
	return space.ReplaceAllString(s, " ")
}
