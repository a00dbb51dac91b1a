package npmpin

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPruneKeepsWhatTheRecordHolds: the trees a record no longer names go;
// its current, previous and candidate ones, a folder being resolved and
// anything not named as a tree stay.
func TestPruneKeepsWhatTheRecordHolds(t *testing.T) {
	dir := t.TempDir()
	tree := func(c string) string {
		p := filepath.Join(dir, strings.Repeat(c, 32))
		if err := os.MkdirAll(filepath.Join(p, "node_modules"), 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cur, prev, cand, old := tree("a"), tree("b"), tree("c"), tree("d")
	for _, other := range []string{".resolving-1", "notes"} {
		if err := os.Mkdir(filepath.Join(dir, other), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	r := Record{Current: Pin{Dir: cur}, Previous: &Pin{Dir: prev}, Candidate: &Pin{Dir: cand}}
	if err := r.Prune(dir); err != nil {
		t.Fatal(err)
	}
	left, _ := os.ReadDir(dir)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	if slices.Contains(names, filepath.Base(old)) || len(names) != 5 {
		t.Errorf("left %v", names)
	}
}
