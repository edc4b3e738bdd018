package chart

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The charts draw numbers and know nothing of databases or variants, so that a chart
// cannot come to depend on what it shows: chart imports the standard library only. Its
// caller names the rows, picks the colours and formats the values. A dbbench package
// (results, questions, matrix, run, saturation, even units, whose unit names know the
// database) or any module outside the standard library fails this test.
func TestChartImportsOnlyTheStandardLibrary(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files: %v", err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			// A standard library path has no dot in its first element; this module's
			// start with dbbench.
			first, _, _ := strings.Cut(path, "/")
			if strings.Contains(first, ".") || first == "dbbench" {
				t.Errorf("%s imports %s: the charts may import only the standard library", f, path)
			}
		}
	}
}
