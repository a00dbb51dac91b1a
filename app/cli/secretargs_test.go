package cli

import (
	"strings"
	"testing"
)

// TestAddSaysSecretOnCommandLine: a server added with a secret in its
// arguments is said to hold it on its command line, with who can read it
// there, by add and by mcptray sandbox NAME.
func TestAddSaysSecretOnCommandLine(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	code, out, errOut := h.run("add", "tok", "--", testServerBin, "-name", "tok", "-say", "${secret:TOKEN}")
	if code != 0 {
		t.Fatalf("add: %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "Its command line holds the secret TOKEN") {
		t.Errorf("add does not say the secret is on its command line:\n%s", out)
	}
	if out := h.must("sandbox", "tok"); !strings.Contains(out, "Its command line holds the secret TOKEN") {
		t.Errorf("mcptray sandbox tok does not say it:\n%s", out)
	}
}

// TestSandboxShowNamesAnyServer: a server called check (or any of the
// sandbox command's words) is shown with mcptray sandbox show NAME, where
// mcptray sandbox check runs the check.
func TestSandboxShowNamesAnyServer(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	for _, name := range []string{"check", "show"} {
		if code, out, errOut := h.run("add", name, "--", testServerBin, "-name", name); code != 0 {
			t.Fatalf("add %s: %d\n%s%s", name, code, out, errOut)
		}
		if out := h.must("sandbox", "show", name); !strings.HasPrefix(out, name+": ") {
			t.Errorf("mcptray sandbox show %s:\n%s", name, out)
		}
	}
}
