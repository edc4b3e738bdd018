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
// cannot come to depend on what it shows: chart and what it imports, transitively,
// may use the standard library and only the pure formatting of package units. A
// package that knows databases (results, questions, matrix, run, saturation…) added
// to an import here, or to units, fails this test.
var allowed = map[string]string{ // import path → directory, from this package's
	"dbbench/runners/report/chart": ".",
	"dbbench/runners/units":        "../../units",
}

func TestChartImportsNothingThatKnowsDatabases(t *testing.T) {
	seen := map[string]bool{}
	var visit func(path string)
	visit = func(path string) {
		if seen[path] {
			return
		}
		seen[path] = true
		for _, imp := range imports(t, allowed[path]) {
			first, _, _ := strings.Cut(imp, "/")
			if !strings.Contains(first, ".") && first != "dbbench" {
				continue // the standard library
			}
			if _, ok := allowed[imp]; !ok {
				t.Errorf("%s imports %s: the charts may import only the standard library and units", path, imp)
				continue
			}
			visit(imp)
		}
	}
	visit("dbbench/runners/report/chart")
}

// imports lists what the non-test Go files of dir import.
func imports(t *testing.T, dir string) []string {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			out = append(out, p)
		}
	}
	return out
}
