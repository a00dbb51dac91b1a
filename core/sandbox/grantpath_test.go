package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGrantPathSpellings: every spelling of one folder is one grant: ~/x,
// $HOME/x, ${HOME}/x, the full path, a trailing slash, x/../x, a symlink
// to it, and the full path through a symlinked home; a folder that does
// not exist yet resolves as far as it does. A relative path is refused in
// words.
func TestGrantPathSpellings(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "var", "home", "ann")
	home := filepath.Join(root, "home", "ann") // a symlink, as /home on Silverblue
	for _, d := range []string{filepath.Join(real, ".ssh"), filepath.Join(real, "code"), filepath.Dir(home)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(real, home); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(real, ".ssh"), filepath.Join(real, "keys")); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(home, ".ssh")
	for _, p := range []string{
		"~/.ssh", "$HOME/.ssh", "${HOME}/.ssh", home + "/.ssh", home + "/.ssh/", home + "/.ssh/../.ssh",
		"~/keys", "~/keys/", real + "/.ssh", real + "/keys", " ~/.ssh ", "~/code/../.ssh",
	} {
		got, err := GrantPath(home, p)
		if err != nil || got != want {
			t.Errorf("GrantPath(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
	if got, err := GrantPath(home, "~/keys/new/folder"); err != nil || got != filepath.Join(home, ".ssh", "new", "folder") {
		t.Errorf("a folder not made yet, under a symlink: %q, %v", got, err)
	}
	if got, err := GrantPath(home, "~"); err != nil || got != home {
		t.Errorf("the home: %q, %v", got, err)
	}
	if got, err := GrantPath(home, "/nonexistent/a/../b/"); err != nil || got != "/nonexistent/b" {
		t.Errorf("outside the home, not there: %q, %v", got, err)
	}
	for _, p := range []string{"Documents", "./data", "~ann/x", "$XDG_DATA_HOME/x", "", "$HOMEBREW/x"} {
		if got, err := GrantPath(home, p); err == nil || !strings.Contains(err.Error(), "full path") {
			t.Errorf("GrantPath(%q) = %q, %v; want an error saying it is no full path", p, got, err)
		}
	}
}

// TestDefaultGrantsInAnySpelling: what the person allowed, in whatever
// spelling it was kept (an older mcptray kept ~/x as given, a hand-edited
// file may say $HOME/x), is in the policy once, as its one spelling.
func TestDefaultGrantsInAnySpelling(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "Documents"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "Documents"), filepath.Join(home, "docs")); err != nil {
		t.Fatal(err)
	}
	p, err := Default(Input{Program: "/usr/bin/node", Home: home, DataDir: filepath.Join(home, ".config", "mcptray", "servers", "w"),
		Settings: Settings{Read: []string{"$HOME/Documents", "~/docs/", "${HOME}/Documents/../Documents", "relative"}}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range p.Read {
		if strings.Contains(r, "Documents") || strings.Contains(r, "docs") || strings.Contains(r, "relative") || strings.Contains(r, "$") {
			n++
			if r != filepath.Join(home, "Documents") {
				t.Errorf("the policy reads %q", r)
			}
		}
	}
	if n != 1 {
		t.Errorf("the policy reads the folder %d times: %v", n, p.Read)
	}
}
