package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Only the first use of an entry links to it, in markdown and in HTML.
func TestLinkTermsLinksFirstUseOnly(t *testing.T) {
	in := "a " + term("turns", "turn") + " b " + term("turn", "turn") + " c " + term("slices", "slice")
	got := linkTerms(in, "../../README.md", mdTermLink)
	want := "a [turns](../../README.md#turn) b turn c [slices](../../README.md#slice)"
	if got != want {
		t.Errorf("markdown:\n got %q\nwant %q", got, want)
	}
	got = linkTerms(in, "../../README.md", htmlTermLink)
	want = `a <a href="../../README.md#turn">turns</a> b turn c <a href="../../README.md#slice">slices</a>`
	if got != want {
		t.Errorf("html:\n got %q\nwant %q", got, want)
	}
}

// The link goes to the reports/README.md of the checkout the run directory is in,
// whatever its depth, and to ../../README.md outside a checkout.
func TestGlossaryPath(t *testing.T) {
	root := t.TempDir()
	run := filepath.Join(root, "reports", "runs", "20260101-000000", "d0ms")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := glossaryPath(run); got != defaultGlossary {
		t.Errorf("without reports/README.md: %q, want %q", got, defaultGlossary)
	}
	if err := os.WriteFile(filepath.Join(root, "reports", "README.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := glossaryPath(run), "../../../README.md"; got != want {
		t.Errorf("glossaryPath = %q, want %q", got, want)
	}
}

// Every entry a report links to exists in reports/README.md, and every mark is
// replaced in both renderings.
func TestGlossaryHasEveryLinkedEntry(t *testing.T) {
	readme, err := os.ReadFile("../../../reports/README.md")
	if err != nil {
		t.Fatal(err)
	}
	r := pairedRun(t)
	withProfiles(r)
	md, err := Markdown(judged(t, r))
	if err != nil {
		t.Fatal(err)
	}
	h, err := HTML(judged(t, r))
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range []string{string(md), string(h)} {
		if strings.Contains(page, "⟦") {
			t.Errorf("a glossary mark was left in a page")
		}
	}
	anchors := regexp.MustCompile(`README\.md#([a-z0-9-]+)`).FindAllStringSubmatch(string(md), -1)
	if len(anchors) < 5 {
		t.Fatalf("%d glossary links in report.md, want several", len(anchors))
	}
	// And the entries only some runs use (a pool answer's hold time and M/M/c).
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		anchors = append(anchors, regexp.MustCompile(`term\("[^"]+", "([a-z0-9-]+)"\)`).FindAllStringSubmatch(string(src), -1)...)
	}
	for _, a := range anchors {
		if !strings.Contains(string(readme), `<a id="`+a[1]+`"></a>`) {
			t.Errorf("report.md links to #%s, which reports/README.md does not have", a[1])
		}
	}
}
