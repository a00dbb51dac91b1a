package npmpin

import (
	"encoding/json"
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
	if strings.ContainsAny(words, "\u200b\u202e") || !strings.Contains(words, "<- taken out here: U+200B ZERO WIDTH SPACE; U+202E RIGHT-TO-LEFT OVERRIDE") {
		t.Errorf("the review shows:\n%q", words)
	}
}

// TestReviewLocatesHiddenCharacters: the review names each hidden
// character of an added line by its code point and name, with the file
// and the line it is on, those of a line past the diff's bound too, and
// says nothing of those on lines that did not change.
func TestReviewLocatesHiddenCharacters(t *testing.T) {
	old := tree(t, "1.0.0", "sha512-a", "const a = 1; // \u200b was here\nmodule.exports = a;\n")
	long := strings.Repeat("x();\n", maxDiffLines+10)
	now := tree(t, "1.0.1", "sha512-b", "const a = 1; // \u200b was here\n"+
		"if (isAdmin) { /* \u202e } \u2066 if (isAdmin) \u2069 \u2066 */\n"+long+
		"const k = \"\U000E0073\U000E0065\U000E006E\U000E0064\"; ok\x1b[2K\n")
	r, err := Compare(old, now)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range r.Hidden {
		got = append(got, h.Words())
	}
	want := []string{
		"U+202E RIGHT-TO-LEFT OVERRIDE at line 2 of x/index.js",
		"U+2066 LEFT-TO-RIGHT ISOLATE (2 times) at line 2 of x/index.js",
		"U+2069 POP DIRECTIONAL ISOLATE at line 2 of x/index.js",
		`4 invisible characters spelling "send" (from U+E0073 TAG LATIN SMALL LETTER S) at line 413 of x/index.js`,
		"U+001B ESCAPE at line 413 of x/index.js",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the review's hidden characters:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	words := r.Words()
	if !strings.Contains(words, "Added lines hold characters that do not show") || !strings.Contains(words, want[0]) || !strings.Contains(words, want[3]) {
		t.Errorf("the review's words:\n%s", words)
	}
	if i, j := strings.Index(words, want[0]), strings.Index(words, "Files:"); i < 0 || i > j {
		t.Errorf("the hidden characters are not said before the files:\n%s", words)
	}
	raw, err := json.Marshal(r.Hidden[0])
	if err != nil || !strings.Contains(string(raw), `"file":"x/index.js","line":2,"column":19,"codePoint":"U+202E","name":"RIGHT-TO-LEFT OVERRIDE"`) {
		t.Errorf("as JSON: %s (%v)", raw, err)
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

// TestReviewNamesScripts: an update whose tree holds packages that
// declare install scripts names them in its review, those the running
// tree did not hold as new, and what became of them.
func TestReviewNamesScripts(t *testing.T) {
	old := tree(t, "1.0.0", "sha512-a", "module.exports = 1;\n")
	now := tree(t, "1.0.1", "sha512-b", "module.exports = 2;\n")
	now.Lock.Packages = append(now.Lock.Packages, Package{Path: "node_modules/gyp-thing", Name: "gyp-thing", Version: "3.0.0", Integrity: "sha512-g", Scripts: true})
	if err := os.MkdirAll(filepath.Join(now.Dir, "node_modules", "gyp-thing"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := writeFresh(filepath.Join(now.Dir, "node_modules", scriptsMark), []byte(`{"packages":["gyp-thing@3.0.0"],"ran":true}`)); err != nil {
		t.Fatal(err)
	}
	r, err := Compare(old, now)
	if err != nil {
		t.Fatal(err)
	}
	want := "Its install scripts: install scripts ran in its sandbox: gyp-thing@3.0.0. New since the version that runs: gyp-thing@3.0.0."
	if w := r.Words(); !strings.Contains(w, want) {
		t.Errorf("the review:\n%s\nlacks %q", w, want)
	}
	if back, err := Compare(now, old); err != nil || back.Scripts != nil || back.NewScripts != nil {
		t.Errorf("a tree without scripts: %+v, %+v (%v)", back.Scripts, back.NewScripts, err)
	}
}
