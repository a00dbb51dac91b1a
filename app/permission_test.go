package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/control"
)

// TestWindowPermissionQuestion: the gateway's question says which app
// wants which tool of which server, with the arguments; Allow once, Allow
// always and Deny answer as control.PermissionAnswer spells them.
func TestWindowPermissionQuestion(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), WindowOptions{})
	q := control.Question{ID: "3", Kind: control.KindPermission, Server: "files",
		Params: mcp.ElicitationParams{Message: "Notes App wants to use read_file from files"},
		Permission: &control.PermissionQuestion{App: "Notes App\u202e", Tool: "mcp__files__read_file", ServerTool: "read_file",
			Arguments: "{\n  \"path\": \"/tmp/x\"\n}", Truncated: true, ReadOnly: true}}
	h.b.questions <- q
	h.wait("question")
	f := h.v.question
	if f == nil || f.d == nil || f.always == nil {
		t.Fatal("no permission dialog for the question")
	}
	shown := strings.Join(labels(h.win.Canvas().Overlays().Top()), "\n")
	for _, want := range []string{"Notes App wants to use read_file from files", "mcp__files__read_file", `"path": "/tmp/x"`,
		"this is their beginning", "says this tool only reads", "[Allow once]", "[Allow always]", "[Deny]"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the dialog does not say %q:\n%s", want, shown)
		}
	}
	if strings.Contains(shown, "\u202e") {
		t.Error("the app's name is not sanitised")
	}
	test.Tap(f.accept)
	if c := h.call(); c != `answer 3 {"action":"accept","content":{"always":false}}` {
		t.Errorf("Allow once answered %q", c)
	}
	h.wait("action")

	q.ID = "4"
	h.b.questions <- q
	h.wait("question")
	test.Tap(h.v.question.always)
	if c := h.call(); c != `answer 4 {"action":"accept","content":{"always":true}}` {
		t.Errorf("Allow always answered %q", c)
	}
	h.wait("action")

	q.ID = "5"
	h.b.questions <- q
	h.wait("question")
	test.Tap(h.v.question.decline)
	if c := h.call(); c != `answer 5 {"action":"decline"}` {
		t.Errorf("Deny answered %q", c)
	}
	h.wait("action")
	if h.v.question != nil {
		t.Error("the dialog still shows after the answer")
	}
}
