package window

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/widget"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcptray/mcptray/core/control"
)

// TestWindowEgressQuestion: the network proxy's question says which server
// wants to reach which host, warns when the host is this computer, and
// Allow once, Always and Deny answer as control.PermissionAnswer spells
// them.
func TestWindowEgressQuestion(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{})
	q := control.Question{ID: "7", Kind: control.KindEgress, Server: "files",
		Params: mcp.ElicitationParams{Message: "Allow files to reach api.weather.gov?"},
		Egress: &control.EgressQuestion{Host: "api.weather.gov\u202e", Port: 443, Dest: "api.weather.gov\u202e"}}
	h.b.questions <- q
	h.wait("question")
	var f *questionForm
	var shown string
	h.do(func() {
		f = h.v.question
		if f == nil || f.d == nil || f.always == nil {
			t.Fatal("no egress dialog for the question")
		}
		shown = strings.Join(labels(h.win.Canvas().Overlays().Top()), "\n")
	})
	for _, want := range []string{"Allow files to reach api.weather.gov?", "files runs in mcptray's sandbox", "Allow once: until files stops",
		"[Allow once]", "[Always]", "[Deny]"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the dialog does not say %q:\n%s", want, shown)
		}
	}
	if strings.Contains(shown, "\u202e") {
		t.Error("the host is not sanitised")
	}
	if strings.Contains(shown, "local network") {
		t.Errorf("a host out there is called local:\n%s", shown)
	}
	if f.accept.Importance != widget.HighImportance {
		t.Error("Allow once does not stand out for a host out there")
	}
	h.tap(f.accept)
	if c := h.call(); c != `answer 7 {"action":"accept","content":{"always":false}}` {
		t.Errorf("Allow once answered %q", c)
	}
	h.wait("action")

	q.ID = "8"
	q.Egress = &control.EgressQuestion{Host: "localhost", Port: 5432, Dest: "localhost:5432", Local: true}
	h.b.questions <- q
	h.wait("question")
	h.do(func() { shown = strings.Join(labels(h.win.Canvas().Overlays().Top()), "\n") })
	if !strings.Contains(shown, "localhost:5432 is this computer or your local network") {
		t.Errorf("no warning for this computer:\n%s", shown)
	}
	h.do(func() {
		if h.v.question.accept.Importance == widget.HighImportance {
			t.Error("Allow once stands out for this computer, where the person is not to be nudged")
		}
	})
	h.tap(h.v.question.always)
	if c := h.call(); c != `answer 8 {"action":"accept","content":{"always":true}}` {
		t.Errorf("Always answered %q", c)
	}
	h.wait("action")

	q.ID = "9"
	h.b.questions <- q
	h.wait("question")
	h.tap(h.v.question.decline)
	if c := h.call(); c != `answer 9 {"action":"decline"}` {
		t.Errorf("Deny answered %q", c)
	}
	h.wait("action")
	h.do(func() {
		if h.v.question != nil {
			t.Error("the dialog still shows after the answer")
		}
	})
}

// TestWindowEgressGuardQuestion: the proxy's question asked by the flow
// guard shows the chain first, with nothing nudged, and is answered as
// any of the proxy's.
func TestWindowEgressGuardQuestion(t *testing.T) {
	h := newHarness(t, sampleSnapshot(), Options{})
	chain := "Claude Code read ~/notes/tax.txt through files, then read https://example.com/issue/42 through fetch. It now wants to send data through files (to backup.example)."
	h.b.questions <- control.Question{ID: "7", Kind: control.KindEgress, Server: "files",
		Params: mcp.ElicitationParams{Message: chain + " Allow files to reach backup.example?"},
		Egress: &control.EgressQuestion{Host: "backup.example", Port: 443, Dest: "backup.example", Chain: chain}}
	h.wait("question")
	var shown string
	h.do(func() {
		f := h.v.question
		if f == nil || f.d == nil || f.always == nil {
			t.Fatal("no egress dialog for the question")
		}
		if f.accept.Importance == widget.HighImportance {
			t.Error("Allow once stands out for the guard's question")
		}
		shown = strings.Join(labels(h.win.Canvas().Overlays().Top()), "\n")
	})
	for _, want := range []string{chain, "Allow files to reach backup.example? What the app read may have told it to send your data away.",
		"files wants to send data out", "[Allow once]", "[Always]", "[Deny]"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the dialog does not say %q:\n%s", want, shown)
		}
	}
	h.tap(h.v.question.decline)
	if c := h.call(); c != `answer 7 {"action":"decline"}` {
		t.Errorf("Deny answered %q", c)
	}
	h.wait("action")
}
