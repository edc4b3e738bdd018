package doc

import (
	"strings"
	"testing"
)

// An answer line that bolds its own figure is not wrapped in bold again (nested markers
// break Markdown), and report.html shows the figure in bold, without asterisks; a line
// without its own bold is bold as a whole in both.
func TestSweepAnswerBoldIsNotNested(t *testing.T) {
	p := &Page{Title: "t", Answer: []string{"go raw: the smallest pool that holds is **4**: its capacity is 2321 req/s.", "no pool holds < 5"}}
	md := string(Markdown(p))
	if !strings.Contains(md, "\ngo raw: the smallest pool that holds is **4**: its capacity") || !strings.Contains(md, "**no pool holds < 5**") {
		t.Errorf("markdown:\n%s", md)
	}
	h, err := HTML(p)
	if err != nil {
		t.Fatal(err)
	}
	html := string(h)
	if !strings.Contains(html, "is <strong>4</strong>: its") || strings.Contains(html, "**") || !strings.Contains(html, "<strong>no pool holds &lt; 5</strong>") {
		t.Errorf("html answer section: %s", html[strings.Index(html, `class="recommendation"`):][:400])
	}
}

// A sentence written for report.md shows its code spans as code in the HTML, and
// everything else escaped: no backticks on the page.
func TestProseShowsCodeSpansAsCode(t *testing.T) {
	got := string(Prose("`make pool-sweep` measures <it> & `a<b`"))
	want := "<code>make pool-sweep</code> measures &lt;it&gt; &amp; <code>a&lt;b</code>"
	if got != want {
		t.Errorf("Prose: %q, want %q", got, want)
	}
}
