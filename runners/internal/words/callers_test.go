package words

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every say("name", …) in a package that keeps its sentences in words.tmpl names one of
// them: a missing template would panic only when the sentence is first rendered, and
// some are rendered by one rare path (an error, a soak's alarm).
func TestEverySayNamesATemplate(t *testing.T) {
	root := filepath.Join("..", "..") // runners/
	checked := 0
	err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if _, err := os.Stat(filepath.Join(dir, "words.tmpl")); err != nil {
			return nil
		}
		book := Load(os.DirFS(dir), "words.tmpl")
		for _, call := range sayCalls(t, dir) {
			checked++
			if book.t.Lookup(call.name) == nil {
				t.Errorf("%s: say(%q) has no {{define %q}} in %s", call.at, call.name, call.name, filepath.Join(dir, "words.tmpl"))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d say calls, each naming a template", checked)
	if checked < 50 { // the test must have found the calls it exists for
		t.Fatalf("checked %d say calls: the walk found too few", checked)
	}
}

type sayCall struct{ at, name string }

// sayCalls are the calls to say with a constant name in dir's non-test Go files; a name
// built at run time is refused, as no test could tie it to a template.
func sayCalls(t *testing.T, dir string) []sayCall {
	fset := token.NewFileSet()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var out []sayCall
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "say" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: say's name is not a constant string", fset.Position(call.Pos()))
				return true
			}
			name, _ := strconv.Unquote(lit.Value)
			out = append(out, sayCall{at: fset.Position(call.Pos()).String(), name: name})
			return true
		})
	}
	return out
}
