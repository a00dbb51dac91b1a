package service

import (
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/npmpin/npmtest"
)

// TestPinnedCodeHiddenShown: a package whose index.js hides a line behind
// U+202E RIGHT-TO-LEFT OVERRIDE (Trojan source), and whose dependency
// hides a zero-width space, is scanned when it is pinned, before its first
// approval: the look says where, in the words of an update's review,
// before what it runs; and so does what runs once approved.
func TestPinnedCodeHiddenShown(t *testing.T) {
	t.Parallel() // beside the others; npmtest.Start takes turns at the registry
	npx := sandboxedNpx(t)
	r := npmtest.Start(t)
	helper := npmtest.Helper("1.0.0")
	helper["index.js"] = strings.Replace(helper["index.js"], "return t;", "return t; // as\u200bis", 1)
	r.Publish(t, helper)
	server := npmtest.Server("3.0.0")
	server["index.js"] = strings.Replace(server["index.js"], "const rl =", "/* admins only \u202e } if (isAdmin) { \u2066*/\nconst rl =", 1)
	r.Publish(t, server)

	h := npxEchoProject(t, r.URL, npx)
	s := h.start(true, inSandbox(h), func(o *Options) { o.Packages = &PackageOptions{} })
	waitFor(t, s, "echo to wait for approval", func(s Snapshot) bool { return state(s, "echo") == conn.AwaitingApproval })

	l, err := s.LookAtTools(t.Context(), "echo")
	if err != nil {
		t.Fatal(err)
	}
	const want = "Its files hold characters that do not show or change how the code reads:\n" +
		"  U+202E RIGHT-TO-LEFT OVERRIDE at line 5 of echo-mcp/index.js\n" +
		"  U+2066 LEFT-TO-RIGHT ISOLATE at line 5 of echo-mcp/index.js\n" +
		"  U+200B ZERO WIDTH SPACE at line 2 of fmt-helper/index.js\n"
	if l.Package == nil || l.Package.HiddenWords != want {
		t.Fatalf("the look says of its code:\n%+v\nwant:\n%s", l.Package, want)
	}
	if _, err := s.Approve(t.Context(), "echo"); err != nil {
		t.Fatal(err)
	}
	views, err := s.Packages(t.Context())
	if err != nil || len(views) != 1 || views[0].HiddenWords != want {
		t.Fatalf("what runs: %+v, %v", views, err)
	}
}
