package window

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/control"
	"github.com/mcptray/mcptray/core/service"
)

// TestWindowWelcome: with no server anywhere the welcome shows, and goes
// once there is one.
func TestWindowWelcome(t *testing.T) {
	h := newHarness(t, service.Snapshot{Keychain: service.Keychain{Available: true}}, Options{})
	var text string
	h.do(func() {
		if !h.v.welcome.box.Visible() || h.v.split.Visible() {
			t.Fatal("no welcome with no servers")
		}
		text = strings.Join(labels(h.v.welcome.box), "\n")
	})
	for _, want := range []string{"Welcome to mcptray", "[Find servers…]", "[Add a server by pasting…]", "Claude Desktop, Claude Code, Cursor or VS Code", "comes with mcptray", "[Try the demo]", "[Add a project folder…]"} {
		if !strings.Contains(text, want) {
			t.Errorf("the welcome lacks %q:\n%s", want, text)
		}
	}
	h.b.set(sampleSnapshot())
	h.wait("snapshot")
	h.do(func() {
		if h.v.welcome.box.Visible() || !h.v.split.Visible() {
			t.Error("the welcome stays once there are servers")
		}
	})
}

// TestWindowSuppressedAndButtons: a suppressed duplicate says which
// server it duplicates; Reconnect and Remove… reach the backend.
func TestWindowSuppressedAndButtons(t *testing.T) {
	s := sampleSnapshot()
	s.Servers = append(s.Servers, service.Server{Name: "files (Cursor)", ConfigName: "files", Scope: config.Imported,
		Transport: config.Stdio, Command: "npx", State: service.Disabled,
		Suppressed: "gives way to the same server in user scope", SuppressedBy: "files"})
	h := newHarness(t, s, Options{Server: "files (Cursor)"})
	h.do(func() {
		text := strings.Join(labels(h.v.detail.content), "\n")
		if !strings.Contains(text, "It duplicates files, which runs in its place") {
			t.Errorf("the suppressed server does not say what it duplicates:\n%s", text)
		}
		if h.v.detail.retry.Visible() || h.v.detail.turn.Visible() {
			t.Error("a suppressed server offers Reconnect or Turn off")
		}
	})

	h.sel("files")
	h.tap(h.v.detail.retry)
	if c := h.call(); c != "retry files" {
		t.Errorf("Reconnect asked the backend to %q", c)
	}
	h.wait("action")
	h.do(func() {
		test.Tap(h.v.detail.remove)
		if b := findButton(h.win.Canvas().Overlays().Top(), "Keep it"); b == nil {
			t.Fatal("Remove… asked nothing")
		} else {
			test.Tap(b)
		}
	})
	select {
	case c := <-h.b.calls:
		t.Fatalf("Keep it still asked the backend to %q", c)
	default:
	}
	h.do(func() {
		test.Tap(h.v.detail.remove)
		test.Tap(findButton(h.win.Canvas().Overlays().Top(), "Remove"))
	})
	if c := h.call(); c != "remove files" {
		t.Errorf("Remove asked the backend to %q", c)
	}
	h.wait("action")
}

// TestWindowAddURLSignsIn: a pasted URL is added under a name taken from
// its host, and once the server needs sign-in the sign-in starts.
func TestWindowAddURLSignsIn(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{})
	h.do(func() {
		test.Tap(h.v.addButton)
		tapMenuItem(t, h.win.Canvas(), "Paste a snippet or address…")
		a := h.v.addDialog
		test.Type(a.paste, "https://mcp.linear.app/mcp")
		if !a.nameBox.Visible() || a.name.Text != "linear" {
			t.Fatalf("the name offered for a URL is %q (shown %v)", a.name.Text, a.nameBox.Visible())
		}
		test.Tap(a.add)
	})
	if c := h.call(); c != `add linear {"url":"https://mcp.linear.app/mcp"}` {
		t.Fatalf("Add asked the backend to %q", c)
	}
	h.wait("add")
	// The fake's Add returns no transport: mark it remote as the service would.
	h.do(func() { h.v.signInWhenAsked(service.Server{Name: "linear", Transport: config.HTTP}) })
	s := sampleSnapshot()
	s.Servers = append(s.Servers, service.Server{Name: "linear", Scope: config.User, Transport: config.HTTP,
		URL: "https://mcp.linear.app/mcp", State: service.NeedsAuth, Fix: service.Fix{Action: service.SignInAction, Label: "Sign in…"}})
	h.b.set(s)
	if c := h.call(); c != "sign-in linear" {
		t.Fatalf("after adding a server that needs sign-in the backend was asked %q", c)
	}
	h.wait("snapshot")
	h.tap(h.v.signInCancel)
	h.call()
	h.wait("sign-in")
}

// TestWindowQuestionForm: the form covers enum, boolean and number
// fields; Cancel and Decline answer as MCP defines; a question that goes
// closes its form.
func TestWindowQuestionForm(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{})
	q := control.Question{ID: "7", Server: "notes\u202e", Params: mcp.ElicitationParams{
		Message: "Pick one",
		RequestedSchema: map[string]any{"type": "object", "required": []any{"colour"}, "properties": map[string]any{
			"colour": map[string]any{"type": "string", "enum": []any{"r", "g"}, "enumNames": []any{"Red", "Green"}, "default": "g"},
			"light":  map[string]any{"type": "boolean", "default": true},
			"ratio":  map[string]any{"type": "number", "minimum": 0.0, "maximum": 1.0},
		}},
	}}
	h.b.questions <- q
	h.wait("question")
	h.do(func() {
		f := h.v.question
		if f == nil || f.d == nil {
			t.Fatal("no form for the question")
		}
		if f.fields[0].key != "colour" || f.fields[0].choice.Selected != "Green" || !f.fields[1].check.Checked {
			t.Errorf("defaults not filled in: %+v", f.fields)
		}
		test.Type(f.fields[2].entry, "2")
		test.Tap(f.accept)
		if !strings.Contains(f.problem.Text, "at most 1") {
			t.Errorf("a number out of bounds: problem %q", f.problem.Text)
		}
		f.fields[2].entry.SetText("0.5")
		test.Tap(f.accept)
	})
	if c := h.call(); c != `answer 7 {"action":"accept","content":{"colour":"g","light":true,"ratio":0.5}}` {
		t.Errorf("Accept answered %q", c)
	}
	h.wait("action")

	q.ID = "8"
	h.b.questions <- q
	h.wait("question")
	h.tap(h.v.question.cancel)
	if c := h.call(); c != `answer 8 {"action":"cancel"}` {
		t.Errorf("Cancel answered %q", c)
	}
	h.wait("action")

	q.ID = "9"
	h.b.questions <- q
	h.wait("question")
	h.b.questions <- control.Question{ID: "9", Gone: true}
	h.wait("question")
	h.do(func() {
		if h.v.question != nil || h.win.Canvas().Overlays().Top() != nil {
			t.Error("a question that went still shows its form")
		}
	})
}

// TestWindowLongAnswer: a question whose answer may take several lines
// (the person answering in the AI model's stead) gets a box of several
// lines, and the lines reach the answer.
func TestWindowLongAnswer(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{})
	h.b.questions <- control.Question{ID: "5", Server: "notes", Params: mcp.ElicitationParams{
		Message: "notes wants an answer from the AI model.",
		RequestedSchema: map[string]any{"type": "object", "required": []any{"reply"}, "properties": map[string]any{
			"reply": map[string]any{"type": "string", "title": "Your answer", service.LongTextKey: true},
		}},
	}}
	h.wait("question")
	h.do(func() {
		f := h.v.question
		if f == nil || len(f.fields) != 1 || f.fields[0].entry == nil || !f.fields[0].entry.MultiLine {
			t.Fatal("no box of several lines for the answer")
		}
		if f.accept.Text != "Send answer" {
			t.Errorf("the answer is sent with %q", f.accept.Text)
		}
		test.Type(f.fields[0].entry, "Hello.\nTwo lines.")
		test.Tap(f.accept)
	})
	if c := h.call(); c != `answer 5 {"action":"accept","content":{"reply":"Hello.\nTwo lines."}}` {
		t.Errorf("Accept answered %q", c)
	}
	h.wait("action")
}
