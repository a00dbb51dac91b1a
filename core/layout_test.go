package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeLayoutNamesEveryPackage holds README's Layout to the module:
// every folder that holds a Go package is named there, at the start of a
// line as "folder/", so a new package comes with its line.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "\n## Layout\n")
	if !ok {
		t.Fatal("README.md has no ## Layout section")
	}
	_, block, ok := strings.Cut(after, "```\n")
	if block, _, ok = strings.Cut(block, "```"); !ok {
		t.Fatal("README.md's Layout has no ``` block")
	}
	named := map[string]bool{}
	for _, line := range strings.Split(block, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			named[strings.TrimSuffix(f[0], "/")] = true
		}
	}
	seen := 0
	for _, fields := range goList(t, "-f", "{{.Dir}}", "./...") {
		rel, err := filepath.Rel(root, fields[0])
		if err != nil {
			t.Fatal(err)
		}
		seen++
		if rel == "." {
			continue // main.go has its line
		}
		if rel = filepath.ToSlash(rel); !named[rel] {
			t.Errorf("README.md's Layout does not name %s/; give it a line of its own", rel)
		}
	}
	if seen < 20 {
		t.Fatalf("go list found %d packages; the test no longer looks where they are", seen)
	}
}
