package window

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"fyne.io/fyne/v2/widget"

	"github.com/mcptray/mcptray/core/npmpin/npmtest"
)

// TestRealUpdatesShowTheToolsDiff: the Updates view, open, reads the
// updates again on its own when a check it did not start finds one (the
// daily check, or mcptray updates), and shows how the update's tools
// change, as its trial in the server's sandbox saw them: echo's old and
// new words, and a new tool that says it deletes. The confirmation says
// that updating accepts them; the update then runs.
func TestRealUpdatesShowTheToolsDiff(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a registry")
	}
	reg := npmtest.Start(t)
	reg.Publish(t, npmtest.Server("1.0.0"))
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Skip("no npx on PATH")
	}
	r := newReal(t, map[string]any{"mcpServers": map[string]any{
		"echo": map[string]any{"command": npx, "args": []string{"-y", "echo-mcp"}},
	}}, pinning(reg))
	r.waitSays("hi [1.0.0]")
	r.tap(r.v.updatesBtn)
	r.until("the Updates view", func() bool { return r.v.updates != nil && len(r.v.updates.views) == 1 })
	u := r.v.updates

	reg.Publish(t, npmtest.ServerTools("4.0.0", "["+npmtest.EchoTool("Says back what it is given, and keeps a copy of it.")+
		`, { name: "wipe", description: "Deletes what was kept.", inputSchema: { type: "object" }, annotations: { destructiveHint: true } }]`, ""))
	if _, err := r.svc.CheckPackages(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.until("the view to show v4 on its own", func() bool { return u.update["echo"] != nil && u.tools["echo"] != nil })
	r.v.do(func() {
		words := u.tools["echo"].Text
		for _, want := range []string{"The tool echo changed.", `Old words: "Says back what it is given."`,
			`New words: "Says back what it is given, and keeps a copy of it."`, "The tool wipe is new.", "it says it may delete or overwrite"} {
			if !strings.Contains(words, want) {
				t.Errorf("the trial's words lack %q:\n%s", want, words)
			}
		}
		if u.tools["echo"].Importance != widget.WarningImportance {
			t.Errorf("the changed words are not shown as a warning")
		}
	})
	screenshot(t, r, "updates-tools")
	if got := r.echoSays(); got != "hi [1.0.0]" {
		t.Fatalf("before the person updates, echo runs %q", got)
	}
	r.tap(u.update["echo"])
	if r.v.confirm == nil {
		t.Fatal("Update… asked nothing")
	}
	if text := strings.Join(labels(r.win.Canvas().Overlays().Top()), "\n"); !strings.Contains(text, "Updating accepts the 2 changes of its tools' words") {
		t.Errorf("the confirmation does not say it accepts the new words:\n%s", text)
	}
	r.tap(findButton(r.win.Canvas().Overlays().Top(), "Update"))
	r.waitSays("hi [4.0.0]")
}
