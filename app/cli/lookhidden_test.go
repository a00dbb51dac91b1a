package cli

import (
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/service"
)

// hiddenWords are what the service says of a pinned tree whose index.js
// hides a line (npmpin.Facts.HiddenWords; the registry test in
// core/service makes them from a real tree).
const hiddenWords = "Its files hold characters that do not show or change how the code reads:\n" +
	"  U+202E RIGHT-TO-LEFT OVERRIDE at line 5 of echo-mcp/index.js\n"

// TestLookSaysHiddenCodeFirst: approve --look says where the package's
// code hides characters before anything else, what it runs included.
func TestLookSaysHiddenCodeFirst(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	printLook(&b, service.Look{Package: &service.PackageView{Words: "echo-mcp version 1.0.0, 1 package in all", HiddenWords: hiddenWords}})
	if got := b.String(); !strings.HasPrefix(got, hiddenWords+"It runs echo-mcp version 1.0.0") {
		t.Errorf("the look says:\n%s", got)
	}
}
