package report

import (
	"fmt"
	"strings"

	"dbbench/runners/judge"
	"dbbench/runners/present/doc"
)

// chartDir holds the answers' charts as SVG files beside report.md, which links them.
const chartDir = "report-charts"

// answerChartFile is the file of an answer's chart, relative to the run directory.
func answerChartFile(a answer) string { return chartDir + "/answer-" + a.ID + ".svg" }

// Markdown renders report.md: the three answers with their charts first, the run in
// one line, then a table per question and language, every variant, and an appendix
// with each comparison in full.
func Markdown(j *judge.Run) ([]byte, error) {
	p, err := build(j)
	if err != nil {
		return nil, err
	}
	return markdown(p), nil
}

func markdown(p *page) []byte {
	return []byte(wrapped(linkTerms(markdownUnwrapped(p), p.Glossary, mdTermLink)))
}

// markdownUnwrapped is report.md with each paragraph on one line and its terms not yet
// linked.
func markdownUnwrapped(p *page) string {
	var b strings.Builder
	b.WriteString("# dbbench report\n\n")
	for _, r := range p.Revisions {
		b.WriteString(r + "\n\n")
	}
	for _, a := range p.Answers {
		// The title links to the answer's evidence, its section.
		fmt.Fprintf(&b, "**[%s](#%s)** %s\n\n", endStop(a.Title), a.ID, strings.TrimSpace(a.Sentence))
		if _, ok := a.chart(); ok {
			fmt.Fprintf(&b, "![%s](%s)\n\n", a.Title, answerChartFile(a))
		}
	}
	b.WriteString(p.RunLine + "\n\n")
	for _, a := range p.Alerts {
		b.WriteString("**" + a + "**\n\n")
	}
	for _, s := range p.Sections {
		mdSection(&b, s)
	}
	if p.Profile != nil {
		mdSection(&b, *p.Profile)
	}
	b.WriteString("<a id=\"variants\"></a>\n\n## Every variant\n\n")
	if len(p.Variants[0].Rows) == 0 {
		b.WriteString("No valid variant was measured.\n\n")
	} else {
		for _, g := range p.Variants {
			mdGrid(&b, g)
		}
	}
	mdAppendix(&b, p.Appendix)
	return b.String()
}

// endStop ends a title with a full stop unless it asks a question.
func endStop(title string) string {
	if strings.HasSuffix(title, "?") {
		return title
	}
	return title + "."
}

func mdSection(b *strings.Builder, s section) {
	fmt.Fprintf(b, "<a id=\"%s\"></a>\n\n## %s\n\n", s.ID, s.Title)
	if s.Empty != "" {
		b.WriteString(s.Empty + "\n\n")
		return
	}
	for _, p := range s.Intro {
		b.WriteString(p + "\n\n")
	}
	for _, g := range s.Grids {
		mdGrid(b, g)
	}
	for _, p := range s.Paragraphs {
		b.WriteString(p + "\n\n")
	}
}

// mdGrid writes a caption, the table and its notes; a cell's lines are joined with " · ".
func mdGrid(b *strings.Builder, g grid) {
	if g.Caption != "" {
		fmt.Fprintf(b, "**%s**\n\n", g.Caption)
	}
	var rows [][]string
	for _, r := range g.Rows {
		var cells []string
		for _, c := range r {
			text := strings.Join(c.Lines, " · ")
			if c.Link != "" && len(c.Lines) > 0 {
				text = fmt.Sprintf("[%s](%s)", c.Lines[0], c.Link)
				if len(c.Lines) > 1 {
					text += " · " + strings.Join(c.Lines[1:], " · ")
				}
			}
			cells = append(cells, text)
		}
		rows = append(rows, cells)
	}
	doc.MarkdownTable(b, g.Head, rows)
	for _, n := range g.Notes {
		b.WriteString(n + "\n\n")
	}
}

func mdAppendix(b *strings.Builder, a appendix) {
	b.WriteString("## Appendix\n\n")
	for _, g := range a.Groups {
		fmt.Fprintf(b, "### %s\n\n", g.Title)
		for _, it := range g.Items {
			fmt.Fprintf(b, "- <a id=\"%s\"></a>%s\n", it.ID, it.Text)
		}
		b.WriteString("\n")
	}
	b.WriteString("### HTTP-only ceiling\n\n" + strings.Join(a.Ceiling, "\n\n") + "\n\n")
	b.WriteString("### Round trips\n\n")
	mdGrid(b, a.Trips)
	if a.Connections != nil {
		b.WriteString("### New connections\n\n")
		mdGrid(b, *a.Connections)
	}
	mdList(b, "Invalid variants", a.Invalid)
	mdList(b, "Flagged variants", a.Flagged)
	if a.Yardstick != "" {
		b.WriteString("### Yardstick\n\n" + a.Yardstick + "\n\n")
	}
	if len(a.Rounds) > 0 {
		b.WriteString("### Stability across rounds\n\n" + strings.Join(a.Rounds, "\n\n") + "\n\n")
		if a.RoundsGrid != nil {
			mdGrid(b, *a.RoundsGrid)
		}
	}
	b.WriteString("### Environment\n\n")
	mdGrid(b, a.Environment)
}

func mdList(b *strings.Builder, title string, items []string) {
	fmt.Fprintf(b, "### %s\n\n", title)
	if len(items) == 0 {
		b.WriteString("None.\n\n")
		return
	}
	for _, it := range items {
		b.WriteString("- " + it + "\n")
	}
	b.WriteString("\n")
}
