package npmpin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHiddenInReadsTheTreeOnly: a tree's code is read for hidden
// characters, the pinned package's first, then its dependencies', with
// file and line; not binary files, nor a byte order mark; and nothing
// through a link an install script may have planted (a file, a folder, a
// whole package's folder, each leading out of the tree to files that hide
// text), which would make mcptray read, and show, the person's files.
func TestHiddenInReadsTheTreeOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tree, outside := filepath.Join(dir, "tree"), filepath.Join(dir, "outside")
	files := map[string]string{
		"outside/evil.js":                       "x = 1 // \u202e\n",
		"outside/lib/evil.js":                   "x = 1 // \u2066\n",
		"outside/pkg/index.js":                  "x = 1 // \u200f\n",
		"tree/node_modules/dep/index.js":        "module.exports = 1; // \u200b\n",
		"tree/node_modules/srv/index.js":        bom + "// one\n// two\nif (a) { /* \u202e } if (b) { */\n",
		"tree/node_modules/srv/logo.png":        "\x89PNG\x00\u202e",
		"tree/node_modules/srv/node_modules/x/": "",
	}
	for path, text := range files {
		p := filepath.Join(dir, path)
		if strings.HasSuffix(path, "/") {
			if err := os.MkdirAll(p, 0o700); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"node_modules/srv/evil.js":                 filepath.Join(outside, "evil.js"),
		"node_modules/srv/lib":                     filepath.Join(outside, "lib"),
		"node_modules/planted":                     filepath.Join(outside, "pkg"),
		"node_modules/srv/node_modules/x/index.js": "../../../../../outside/evil.js",
	} {
		if err := os.Symlink(target, filepath.Join(tree, link)); err != nil {
			t.Fatal(err)
		}
	}
	lock := Lock{Root: "srv", Packages: []Package{
		{Path: "node_modules/dep", Name: "dep"}, {Path: "node_modules/planted", Name: "planted"},
		{Path: "node_modules/srv", Name: "srv"}, {Path: "node_modules/srv/node_modules/x", Name: "x"},
	}}
	found, more, unread, err := hiddenIn(tree, lock)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range found {
		got = append(got, h.Words())
	}
	want := []string{
		"U+202E RIGHT-TO-LEFT OVERRIDE at line 3 of srv/index.js",
		"U+200B ZERO WIDTH SPACE at line 1 of dep/index.js",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || more != 0 || unread != 0 {
		t.Errorf("found:\n%s\n(%d more, %d unread), want:\n%s", strings.Join(got, "\n"), more, unread, strings.Join(want, "\n"))
	}
}

// TestHiddenInBounded: a file past the bound is counted, not read, and
// the words say so.
func TestHiddenInBounded(t *testing.T) {
	t.Parallel()
	tree := t.TempDir()
	big := filepath.Join(tree, "node_modules", "srv", "bundle.js")
	if err := os.MkdirAll(filepath.Dir(big), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, []byte(strings.Repeat("x", maxScanFile)+"\u202e"), 0o600); err != nil {
		t.Fatal(err)
	}
	found, _, unread, err := hiddenIn(tree, Lock{Root: "srv", Packages: []Package{{Path: "node_modules/srv", Name: "srv"}}})
	if err != nil || len(found) != 0 || unread != 1 {
		t.Fatalf("found %v, %d unread, %v", found, unread, err)
	}
	if w := (Facts{Unread: unread}).HiddenWords(); !strings.HasPrefix(w, "1 of its files were not read for hidden characters") {
		t.Errorf("the words: %q", w)
	}
}

// TestHiddenReadOnce: the facts of an installed tree read its code once;
// a second look reads no file of it (here the tree's package is gone by
// then, and the second look still names what the first found). What it
// found is kept for that tree alone: a result naming another tree's
// hash, or planted in node_modules where an install script may write, is
// not believed, and a tree not installed yet is read each time.
func TestHiddenReadOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	hash := strings.Repeat("ab", 32)
	p := Pin{Spec: Spec{Package: "srv"}, Dir: dir, Lock: Lock{Hash: hash, Root: "srv", Packages: []Package{{Path: "node_modules/srv", Name: "srv", Version: "1.0.0"}}}}
	n := &NPM{Path: filepath.Join(dir, "no-npm")} // the registry's date is not asked
	look := func() []string {
		t.Helper()
		var got []string
		for _, h := range n.Facts(t.Context(), p).Hidden {
			got = append(got, h.Words())
		}
		return got
	}
	want := "U+202E RIGHT-TO-LEFT OVERRIDE at line 1 of srv/index.js"

	// Not installed: read each time, nothing kept.
	write("node_modules/srv/index.js", "x = 1 // \u202e\n")
	if got := look(); len(got) != 1 || got[0] != want {
		t.Fatalf("first look: %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, hiddenCacheName)); err == nil {
		t.Fatal("kept the reading of a tree not installed")
	}

	// A result an install script planted in node_modules says nothing.
	write("node_modules/"+hiddenCacheName, `{"hash":"`+hash+`"}`)
	write("node_modules/"+installedMark, hash)
	if got := look(); len(got) != 1 {
		t.Fatalf("a result planted in node_modules was believed: %q", got)
	}
	// Installed and read: a second look reads no file of the tree.
	if err := os.RemoveAll(filepath.Join(dir, "node_modules", "srv")); err != nil {
		t.Fatal(err)
	}
	if got := look(); len(got) != 1 || got[0] != want {
		t.Fatalf("the second look read the tree again: %q", got)
	}
	// A kept result of another tree is not believed.
	write(hiddenCacheName, `{"hash":"`+strings.Repeat("cd", 32)+`","hidden":[{"file":"x.js","line":1,"codePoint":"U+200B"}]}`)
	if got := look(); len(got) != 0 {
		t.Fatalf("another tree's result was believed: %q", got)
	}
	// A result an older mcptray kept, whose reading may have missed what
	// this one finds, is read again.
	write("node_modules/srv/index.js", "x = 1 // \u202e\n")
	write(hiddenCacheName, `{"hash":"`+hash+`","reader":"an older mcptray"}`)
	if got := look(); len(got) != 1 || got[0] != want {
		t.Fatalf("an older mcptray's reading was believed: %q", got)
	}
}
