package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every README's quotes and figures from a committed sample are the sample's: a figure
// changed by hand, or a sample regenerated without its quotes, fails here.
func TestREADMEsQuoteTheSamples(t *testing.T) {
	root := filepath.Join("..", "..")
	var readmes []string
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == "runs" || d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.Name() == "README.md" {
			rel, _ := filepath.Rel(root, path)
			readmes = append(readmes, rel)
		}
		return nil
	})
	checked := 0
	for _, r := range readmes {
		ps, err := Passages(root, r)
		if err != nil {
			t.Error(err)
			continue
		}
		if len(ps) > 0 {
			t.Logf("%s: %d marked passages", r, len(ps))
		}
		bad, _ := Misplaced(root, r)
		for _, b := range bad {
			t.Error(b)
		}
		for _, p := range ps {
			checked++
			for _, m := range Check(root, p) {
				t.Errorf("%s:%d quotes %q, which %s does not hold", p.README, p.Line, m, p.Sample)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no README marks a passage it quotes from a sample")
	}
	t.Logf("%d marked passages in %d READMEs", checked, len(readmes))
}

// A figure changed by hand is caught; a quote cut with "…" is checked piece by piece.
func TestCheckCatchesAChangedFigure(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "sample.md"), []byte("**1. Layer.** GORM 0.81× [0.78, 0.83], Beego 0.95×.\nRun took 8m46s.\n"), 0o644)
	readme := "intro\n<!-- quote sample.md -->\n> **1. Layer.** GORM 0.81× [0.78, 0.83] … Beego 0.95×.\n<!-- /quote -->\n" +
		"<!-- figures sample.md -->\nA run took 8m46s.\n<!-- /figures -->\n"
	os.WriteFile(filepath.Join(root, "README.md"), []byte(readme), 0o644)
	ps, err := Passages(root, "README.md")
	if err != nil || len(ps) != 2 {
		t.Fatalf("Passages = %v, %v", ps, err)
	}
	for _, p := range ps {
		if m := Check(root, p); len(m) != 0 {
			t.Fatalf("%s passage: %v missing from a sample that holds it", p.Kind, m)
		}
	}
	ps[0].Text = strings.Replace(ps[0].Text, "0.81×", "0.82×", 1)
	ps[1].Text = strings.Replace(ps[1].Text, "8m46s", "7m2s", 1)
	if m := Check(root, ps[0]); len(m) != 1 || !strings.Contains(m[0], "0.82×") {
		t.Errorf("a changed quote: %v", m)
	}
	if m := Check(root, ps[1]); len(m) == 0 {
		t.Errorf("a changed figure went unseen")
	}
}

// A marker inside a paragraph checks the text between the markers and nothing else of
// its lines: the figure before it need not be the sample's.
func TestInlineMarkers(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "sample.md"), []byte("GORM 0.81× [0.78, 0.83]; Run took 8m46s.\n"), 0o644)
	readme := "Measured elsewhere: 1.7×; in the sample GORM kept\n<!-- x --> not a marker\n" +
		"on 2 cores <!-- figures sample.md -->0.81× [0.78,\n0.83]<!-- /figures --> and took <!-- figures sample.md -->8m46s<!-- /figures -->.\n"
	os.WriteFile(filepath.Join(root, "README.md"), []byte(readme), 0o644)
	ps, err := Passages(root, "README.md")
	if err != nil || len(ps) != 2 {
		t.Fatalf("Passages = %v, %v", ps, err)
	}
	if ps[0].Line != 3 || ps[0].Text != "0.81× [0.78,\n0.83]" || ps[1].Line != 4 || ps[1].Text != "8m46s" {
		t.Errorf("passages: %+v", ps)
	}
	for _, p := range ps {
		if m := Check(root, p); len(m) != 0 {
			t.Errorf("line %d: %v missing from a sample that holds it", p.Line, m)
		}
	}
	os.WriteFile(filepath.Join(root, "README.md"), []byte("a <!-- figures sample.md -->1.7×\n"), 0o644)
	if _, err := Passages(root, "README.md"); err == nil || !strings.Contains(err.Error(), "README.md:1: no <!-- /figures -->") {
		t.Errorf("an unclosed marker: %v", err)
	}
}

// A marker that starts a line would end the paragraph it stands in, or show its text.
func TestMisplacedMarkers(t *testing.T) {
	root := t.TempDir()
	readme := "text\n<!-- figures s.md -->1.7×<!-- /figures --> more\n\n" + // 2: starts a line, not alone
		"text\n<!-- figures s.md -->\nmore text\n<!-- /figures -->\n\n" + // 5: splits the paragraph
		"<!-- quote s.md -->\n> quoted\n<!-- /quote -->\nnext\n\n" + // 11: runs into the next paragraph
		"fine <!-- figures s.md -->1.7×\n2.5<!-- /figures --> fine\n\n" +
		"<!-- figures s.md -->\n| a |\n|---|\n| 1 |\n<!-- /figures -->\n"
	os.WriteFile(filepath.Join(root, "README.md"), []byte(readme), 0o644)
	bad, err := Misplaced(root, "README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"README.md:2:", "README.md:5:", "README.md:11:"}
	if len(bad) != len(want) {
		t.Fatalf("Misplaced = %q, want lines %v", bad, want)
	}
	for i, w := range want {
		if !strings.HasPrefix(bad[i], w) {
			t.Errorf("Misplaced[%d] = %q, want %s…", i, bad[i], w)
		}
	}
}
