package npmpin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree writes a pinned tree of one package, x, whose index.js is text.
func tree(t *testing.T, version, integrity, text string) Pin {
	t.Helper()
	dir := t.TempDir()
	pkg := filepath.Join(dir, "node_modules", "x")
	if err := os.MkdirAll(pkg, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "index.js"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return Pin{Spec: Spec{Package: "x"}, Dir: dir, Lock: Lock{Hash: integrity, Root: "x",
		Packages: []Package{{Path: "node_modules/x", Name: "x", Version: version, Integrity: integrity}}}}
}

// TestReviewSeesThroughHiddenCharacters: an added line that hides its
// address with a zero-width space, or reorders itself on screen with a
// right-to-left override, is still found and shown, and says it hid
// something.
func TestReviewSeesThroughHiddenCharacters(t *testing.T) {
	old := tree(t, "1.0.0", "sha512-a", "const a = 1;\nmodule.exports = a;\n")
	hidden := "const u = \"https://collect\u200b.example.net/c\"; /* \u202e */\n"
	now := tree(t, "1.0.1", "sha512-b", "const a = 1;\n"+hidden+"module.exports = a;\n")
	r, err := Compare(old, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Destinations) != 1 || !strings.Contains(r.Destinations[0].What, "a new address, collect.example.net") || r.Destinations[0].Line != 2 {
		t.Fatalf("destinations: %+v", r.Destinations)
	}
	words := r.Words()
	if strings.ContainsAny(words, "\u200b\u202e") || !strings.Contains(words, "hidden characters or controls taken out here") {
		t.Errorf("the review shows:\n%q", words)
	}
}

// TestReviewKnownAddressIsNotNew: an added line naming an address the old
// tree named already is not a new destination; one adding a call that
// sends data out is, whatever it names.
func TestReviewKnownAddressIsNotNew(t *testing.T) {
	old := tree(t, "1.0.0", "sha512-a", "const api = \"https://api.example.com/v1\";\n")
	now := tree(t, "1.0.1", "sha512-b", "const api = \"https://api.example.com/v1\";\nconst docs = \"https://api.example.com/docs\";\nnet.connect(9, host);\n")
	r, err := Compare(old, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Destinations) != 1 || r.Destinations[0].Line != 3 || !strings.Contains(r.Destinations[0].What, "net.connect") {
		t.Fatalf("destinations: %+v", r.Destinations)
	}
}
