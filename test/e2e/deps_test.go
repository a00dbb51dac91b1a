package e2e

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDepsAreMains checks that this package imports every package
// mcptray's main does (deps.go says why).
func TestDepsAreMains(t *testing.T) {
	imports := func(files ...string) map[string]bool {
		set := map[string]bool{}
		fset := token.NewFileSet()
		for _, f := range files {
			ast, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range ast.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				set[path] = true
			}
		}
		return set
	}
	ours, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range ours {
		if !strings.HasSuffix(f, "_test.go") {
			files = append(files, f)
		}
	}
	have := imports(files...)
	for path := range imports(filepath.Join("..", "..", "main.go")) {
		// The standard library's paths have no dot in their first element.
		if strings.Contains(strings.Split(path, "/")[0], ".") && !have[path] {
			t.Errorf("main.go imports %s and test/e2e does not: add it to deps.go", path)
		}
	}
}
