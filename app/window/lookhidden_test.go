package window

import (
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/service"
)

// TestLookTextSaysHiddenCodeFirst: the approval dialog's look says where
// the package's code hides characters in its first paragraph, before
// what it runs (npmpin.Facts.HiddenWords; the registry test in
// core/service makes them from a real tree).
func TestLookTextSaysHiddenCodeFirst(t *testing.T) {
	t.Parallel()
	const hidden = "Its files hold characters that do not show or change how the code reads:\n" +
		"  U+202E RIGHT-TO-LEFT OVERRIDE at line 5 of echo-mcp/index.js\n"
	out := lookText(service.Look{Package: &service.PackageView{Words: "echo-mcp version 1.0.0", HiddenWords: hidden}})
	if len(out) < 2 || out[0] != strings.TrimRight(hidden, "\n") || !strings.HasPrefix(out[1], "It runs echo-mcp version 1.0.0") {
		t.Errorf("the look says: %q", out)
	}
}
