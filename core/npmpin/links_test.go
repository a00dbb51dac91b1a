package npmpin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plantedTree is a pinned tree whose package folder, node_modules/srv, a
// script replaced with a link to a folder outside the tree that holds a
// package.json and a program of the attacker's choosing.
func plantedTree(t *testing.T) (Pin, string) {
	t.Helper()
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	tree := filepath.Join(dir, "tree")
	for path, text := range map[string]string{
		filepath.Join(outside, "package.json"): `{"name":"srv","version":"1.0.0","bin":"index.js"}`,
		filepath.Join(outside, "index.js"):     "// not the pinned code\n",
		filepath.Join(outside, "id_ed25519"):   "SECRET KEY\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(tree, "node_modules"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(tree, "node_modules", "srv")); err != nil {
		t.Fatal(err)
	}
	return Pin{Spec: Spec{Package: "srv"}, Dir: tree}, outside
}

// TestProgramThroughNoLink: Program does not resolve a package's program
// through a link out of its tree (its package folder made a link to
// another folder by an install script), and removing the tree leaves
// what the link led to.
func TestProgramThroughNoLink(t *testing.T) {
	t.Parallel()
	p, outside := plantedTree(t)
	if command, args, err := p.Program(); err == nil {
		t.Fatalf("Program resolved through the link: %s %v", command, args)
	} else if !strings.Contains(err.Error(), "link") {
		t.Errorf("its words: %v", err)
	} else {
		t.Logf("its words: %v", err)
	}
	if err := p.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(outside, "id_ed25519")); err != nil {
		t.Errorf("removing the tree removed what its link led to: %v", err)
	}
}

// TestLinksLeavingTheTree: a tree whose scripts left links out of it (to
// a secret file, to a folder outside, into /proc/self) is refused, naming
// the link and the packages whose scripts ran; links that stay in it
// (node_modules/.bin's) are kept.
func TestLinksLeavingTheTree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	pkg := filepath.Join(tree, "node_modules", "srv")
	if err := os.MkdirAll(filepath.Join(pkg, "bin"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(tree, "node_modules", ".bin"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, "bin", "srv.js"), []byte("//\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../srv/bin/srv.js", filepath.Join(tree, "node_modules", ".bin", "srv")); err != nil {
		t.Fatal(err)
	}
	if err := linksOut(tree, []string{"srv@1.0.0"}); err != nil {
		t.Fatalf("a tree with links inside it only: %v", err)
	}
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"README.md": secret,
		"lib":       dir,
		"proc":      "/proc/self/root",
		"up":        "../../../secret",
		"sneaky":    "../.bin/../../../secret",
	} {
		link := filepath.Join(pkg, name)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		err := linksOut(tree, []string{"srv@1.0.0"})
		if err == nil || !strings.Contains(err.Error(), "srv@1.0.0") || !strings.Contains(err.Error(), "node_modules/srv/"+name) {
			t.Errorf("a link to %s: %v", target, err)
		}
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReviewThroughNoLink: an update's review reads no file through a
// link out of a tree: a scope's folder (node_modules/@s) made a link to a
// folder outside that holds a secret where the package's files would be.
// The review fails, and shows nothing of the secret.
func TestReviewThroughNoLink(t *testing.T) {
	t.Parallel()
	old := tree(t, "1.0.0", "sha512-a", "module.exports = 1;\n")
	next := tree(t, "1.0.1", "sha512-b", "module.exports = 2;\n")
	outside := filepath.Join(t.TempDir(), "ssh")
	if err := os.MkdirAll(filepath.Join(outside, "keys"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "keys", "id_ed25519"), []byte("SECRET KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(next.Dir, "node_modules", "@s")); err != nil {
		t.Fatal(err)
	}
	next.Lock.Packages = append(next.Lock.Packages, Package{Path: "node_modules/@s/keys", Name: "@s/keys", Version: "1.0.0", Integrity: "sha512-c"})
	r, err := Compare(old, next)
	if err == nil {
		t.Errorf("the review read through the link: %s", r.Words())
	} else {
		t.Logf("its words: %v", err)
	}
	if strings.Contains(r.Words(), "SECRET") {
		t.Errorf("the review shows the secret: %s", r.Words())
	}
}
