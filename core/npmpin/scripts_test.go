package npmpin

import (
	"context"
	"fmt"
	"os"
	"os/exec"
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

// TestScriptsOnlyOfThoseNamed: npm rebuild runs the install scripts of the
// packages the lockfile says declare them, and of no other: a package
// whose tarball's package.json has a postinstall that its registry's
// manifest (and so the lockfile) did not declare runs nothing, nor does
// another version of a named package nested deeper.
func TestScriptsOnlyOfThoseNamed(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("no npm on PATH")
	}
	dir := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, path), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	script := func(name, version string) string {
		return fmt.Sprintf(`{"name":%q,"version":%q,"scripts":{"postinstall":"node -e \"require('fs').writeFileSync('ran','')\""}}`, name, version)
	}
	write("package.json", `{"name":"mcptray-pin","version":"0.0.0","dependencies":{"a":"1.0.0","sneaky":"1.0.0","c":"1.0.0"}}`)
	write("node_modules/a/package.json", script("a", "1.0.0"))
	write("node_modules/sneaky/package.json", script("sneaky", "1.0.0"))
	write("node_modules/c/package.json", `{"name":"c","version":"1.0.0","dependencies":{"a":"2.0.0"}}`)
	write("node_modules/c/node_modules/a/package.json", script("a", "2.0.0"))
	l := Lock{Root: "a", Packages: []Package{
		{Path: "node_modules/a", Name: "a", Version: "1.0.0", Integrity: "sha512-a", Scripts: true},
		{Path: "node_modules/c", Name: "c", Version: "1.0.0", Integrity: "sha512-c"},
		{Path: "node_modules/c/node_modules/a", Name: "a", Version: "2.0.0", Integrity: "sha512-a2"},
		{Path: "node_modules/sneaky", Name: "sneaky", Version: "1.0.0", Integrity: "sha512-s"},
	}}
	// The scripts run as the service runs them, its sandbox aside.
	n := &NPM{Scripts: func(ctx context.Context, _, _, program string, args, env []string) (string, error) {
		cmd := exec.CommandContext(ctx, program, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}}
	if err := n.runScripts(t.Context(), dir, l); err != nil {
		t.Fatal(err)
	}
	if r, ok := ScriptsOf(dir); !ok || !r.Ran || strings.Join(r.Packages, ",") != "a@1.0.0" {
		t.Errorf("what became of the scripts: %+v, %v", r, ok)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules/a/ran")); err != nil {
		t.Errorf("a@1.0.0's script did not run: %v", err)
	}
	for _, p := range []string{"node_modules/sneaky/ran", "node_modules/c/node_modules/a/ran"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("a script the lockfile does not name ran: %s", p)
		}
	}
}
