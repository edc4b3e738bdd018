package docs

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// brokenEmphasis lists the text of md that a Markdown parser (goldmark, with tables)
// leaves as literal ** or __: emphasis that never opened or closed, such as bold nested
// in bold. Code spans are not text, so their stars do not count.
func brokenEmphasis(md []byte) []string {
	doc := goldmark.New(goldmark.WithExtensions(extension.Table)).Parser().Parse(text.NewReader(md))
	var out []string
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if _, code := n.Parent().(*ast.CodeSpan); code {
			return ast.WalkContinue, nil
		}
		if t, ok := n.(*ast.Text); ok && entering {
			if s := string(t.Segment.Value(md)); strings.Contains(s, "**") || strings.Contains(s, "__") {
				out = append(out, s)
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

// The check itself: a hand-made broken emphasis is found, a good one is not.
func TestBrokenEmphasisIsFound(t *testing.T) {
	if got := brokenEmphasis([]byte("The pool is **4**: **it holds**.\n\n| a | **b** |\n|---|---|\n| `x ** y` | 1 |\n")); len(got) != 0 {
		t.Errorf("well-formed Markdown flagged: %q", got)
	}
	if got := brokenEmphasis([]byte("The pool is **4 **: it holds.\n")); len(got) == 0 {
		t.Error("a bold that never closes (its closing stars follow a space), which renders as literal stars, was not found")
	}
}

// Every committed report.md renders: no emphasis left as literal stars.
func TestCommittedReportsRender(t *testing.T) {
	root := filepath.Join("..", "..")
	n := 0
	filepath.WalkDir(filepath.Join(root, "reports"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "runs" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n++
		if bad := brokenEmphasis(b); len(bad) > 0 {
			t.Errorf("%s: emphasis left as literal stars in %q", path, bad)
		}
		return nil
	})
	if n == 0 {
		t.Fatal("no committed report.md found")
	}
}

// machinePath is a directory of one machine: a run's working copy, a temporary or a
// home directory.
var machinePath = regexp.MustCompile(`(^|[^\w.])(/tmp/|/work/|/root/|/home/|/var/folders/)`)

// Nothing committed under reports/ names a path of the machine it was made on.
func TestNoMachinePathUnderReports(t *testing.T) {
	root := filepath.Join("..", "..")
	filepath.WalkDir(filepath.Join(root, "reports"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "runs" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(b, 0) >= 0 {
			return nil // binary
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := machinePath.FindString(line); m != "" {
				t.Errorf("%s:%d names a machine's path: %.160s", path, i+1, strings.TrimSpace(line))
				break
			}
		}
		return nil
	})
}
