package report

import (
	"regexp"
	"strings"
)

// wrapAt is the longest line wrapped writes where it can break: report.md reads in an
// editor, a terminal and a diff without scrolling sideways.
const wrapAt = 100

// blockStart matches a word that would open a block of its own at the start of a line
// (a list item, a heading, a quote, a table row, an HTML block, a setext underline):
// no line is broken before one, so the page renders as it would unwrapped.
var blockStart = regexp.MustCompile("^([-+*=_]+$|>|#{1,6}$|[|<]|\x60{3}|~{3}|\\d+[.)]$|\\[\\^)")

// wrapped breaks each paragraph and list item of md longer than wrapAt at spaces;
// tables, headings, HTML and images stay on one line. A list item's lines after the
// first are indented under its text.
func wrapped(md string) string {
	lines := strings.Split(md, "\n")
	var out []string
	for _, line := range lines {
		if len(line) <= wrapAt || !wrappable(line) {
			out = append(out, line)
			continue
		}
		indent := ""
		if strings.HasPrefix(line, "- ") {
			indent = "  "
		}
		out = append(out, breakLine(line, indent)...)
	}
	return strings.Join(out, "\n")
}

// wrappable says whether a line is prose: not a table row, heading, HTML block or image.
func wrappable(line string) bool {
	for _, p := range []string{"|", "#", "<", "![", "    ", "\t"} {
		if strings.HasPrefix(line, p) {
			return false
		}
	}
	return true
}

// breakLine splits line at spaces into lines of at most wrapAt bytes where it can,
// never before a word that blockStart matches, inside brackets (a link's text, an
// interval) or between a ratio and its interval.
func breakLine(line, indent string) []string {
	words := strings.Split(line, " ")
	var out []string
	cur, prev := words[0], words[0]
	depth := strings.Count(prev, "[") - strings.Count(prev, "]")
	for _, w := range words[1:] {
		can := w != "" && depth <= 0 && !blockStart.MatchString(w) && !(strings.HasSuffix(prev, "×") && strings.HasPrefix(w, "["))
		if len(cur)+1+len(w) > wrapAt && can && strings.TrimSpace(cur) != "" {
			out = append(out, cur)
			cur = indent + w
		} else {
			cur += " " + w
		}
		prev = w
		depth += strings.Count(w, "[") - strings.Count(w, "]")
	}
	return append(out, cur)
}
