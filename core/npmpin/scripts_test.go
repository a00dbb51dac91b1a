package npmpin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMarkThroughNoLink: a script that planted a link where mcptray
// writes its mark after the scripts (to the person's ~/.bashrc) gets its
// link replaced; what it pointed at is untouched.
func TestMarkThroughNoLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bashrc := filepath.Join(dir, ".bashrc")
	if err := os.WriteFile(bashrc, []byte("# mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(dir, installedMark)
	if err := os.Symlink(bashrc, mark); err != nil {
		t.Fatal(err)
	}
	if err := writeFresh(mark, []byte("hash")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(bashrc); string(b) != "# mine\n" {
		t.Errorf("the link's target became %q", b)
	}
	if st, err := os.Lstat(mark); err != nil || !st.Mode().IsRegular() {
		t.Errorf("the mark is %v, %v", st, err)
	}
}

// TestScriptsWords: what the facts say of a tree's scripts.
func TestScriptsWords(t *testing.T) {
	t.Parallel()
	pkgs := []string{"a@1.0.0", "b@2.0.0"}
	for _, c := range []struct {
		run  ScriptsRun
		want string
	}{
		{ScriptsRun{Packages: pkgs, Ran: true}, "install scripts ran in its sandbox: a@1.0.0, b@2.0.0"},
		{ScriptsRun{Packages: pkgs, Failed: "exit status 1, running node x.js\x1b[2J"}, "install scripts of a@1.0.0, b@2.0.0 failed in its sandbox: exit status 1, running node x.js"},
		{ScriptsRun{Packages: pkgs, NotRun: "no sandbox to run them in here"}, "install scripts not run (no sandbox to run them in here): a@1.0.0, b@2.0.0"},
	} {
		if got := c.run.Words(); !strings.HasPrefix(got, c.want) || strings.Contains(got, "\x1b") {
			t.Errorf("%+v says %q, want %q", c.run, got, c.want)
		}
	}
}
