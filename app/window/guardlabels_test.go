package window

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/core/tools"
)

func (f *fakeRemote) SetGuardLabels(_ context.Context, tool string, c service.LabelChange, reset bool) error {
	word := func(b *bool) string {
		if b == nil {
			return "-"
		}
		return fmt.Sprint(*b)
	}
	return f.call(fmt.Sprintf("guard-label %s private=%s untrusted=%s egress=%s reset=%v", tool, word(c.Private), word(c.Untrusted), word(c.Egress), reset))
}

func (f *fakeRemote) SetGuardMode(_ context.Context, m service.GuardMode) error {
	return f.call("guard-mode " + string(m))
}

// guardSnapshot has a sandboxed notes server that may read ~/Documents and
// reach api.example.com, with two tools, the second of which the person
// said sends nothing out.
func guardSnapshot() service.Snapshot {
	no := false
	return service.Snapshot{
		Keychain: service.Keychain{Available: true},
		Gateway:  config.GatewayRules{Guard: config.GuardRules{Labels: map[string]config.LabelChange{"mcp__notes__list": {Egress: &no}}}},
		Servers: []service.Server{{Name: "notes", Scope: config.User, Transport: config.Stdio, Command: "notes-mcp",
			Origin: config.Origin{File: "/home/me/.config/mcptray/config.json", App: "mcptray"}, State: service.Connected,
			Sandbox: &service.Sandbox{Protection: sandbox.Level{Files: true, Network: true},
				Grants: []service.Grant{
					{Grant: sandbox.Grant{Kind: "folder", What: "~/Documents"}},
					{Grant: sandbox.Grant{Kind: "host", What: "api.example.com", Setting: "api.example.com"}},
				}},
			Tools: []tools.Tool{
				{Name: "read_note", QualifiedName: "mcp__notes__read_note", Description: "Reads a note."},
				{Name: "list", QualifiedName: "mcp__notes__list", Description: "Lists notes."},
			}}},
	}
}

// TestWindowGuardLabels: a tool's labels show in its server's detail in
// words, each with its reason; a switch corrects one label of one tool
// through the service's API, and a corrected tool offers to go back to
// what mcptray derived.
func TestWindowGuardLabels(t *testing.T) {
	h := newHarness(t, guardSnapshot(), Options{})
	h.sel("notes")
	h.waitFor("read_note's labels", func() bool { return h.v.rules != nil && h.v.rules.guard["mcp__notes__read_note"] != nil })
	var read, list *guardSwitches
	var shown string
	h.do(func() {
		read, list = h.v.rules.guard["mcp__notes__read_note"], h.v.rules.guard["mcp__notes__list"]
		shown = strings.Join(labels(h.v.detail.content), "\n")
	})
	for _, want := range []string{
		"reads private data: it may read ~/Documents",
		"brings in content others wrote: it may reach api.example.com",
		"can send data out: it may reach api.example.com",
		"not egress: you said so",
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("the detail does not say %q:\n%s", want, shown)
		}
	}
	if !read.private.Checked || !read.untrusted.Checked || !read.egress.Checked || read.reset != nil {
		t.Errorf("read_note's switches: private %v, untrusted %v, egress %v, reset %v", read.private.Checked, read.untrusted.Checked, read.egress.Checked, read.reset)
	}
	if list.egress.Checked || !list.private.Checked || list.reset == nil {
		t.Errorf("list's switches: egress %v, private %v, reset %v", list.egress.Checked, list.private.Checked, list.reset)
	}
	h.do(func() { test.Tap(read.egress) })
	if c := h.call(); c != "guard-label mcp__notes__read_note private=- untrusted=- egress=false reset=false" {
		t.Errorf("unticking read_note's egress: %q", c)
	}
	h.wait("action")
	h.tap(list.reset)
	if c := h.call(); c != "guard-label mcp__notes__list private=- untrusted=- egress=- reset=true" {
		t.Errorf("list's labels as mcptray sees them: %q", c)
	}
	h.wait("action")
}

// TestWindowGuardMode: Settings shows the guard's mode, ask by default,
// and changes it through the service's API.
func TestWindowGuardMode(t *testing.T) {
	h := newHarness(t, guardSnapshot(), Options{})
	h.do(h.v.showSettings)
	h.waitEach("activity settings", "sandbox check")
	var g *guardMode
	var shown string
	h.do(func() {
		g = h.v.settings.guard
		shown = strings.Join(labels(h.win.Canvas().Overlays().Top()), "\n")
	})
	if g.choice.Selected != "Ask me" {
		t.Errorf("the guard's mode shows as %q, want Ask me", g.choice.Selected)
	}
	if !strings.Contains(shown, "Guard") || !strings.Contains(shown, "until you have read what would flow where") {
		t.Errorf("Settings does not say what the guard does:\n%s", shown)
	}
	h.do(func() { g.choice.SetSelected("Block") })
	if c := h.call(); c != "guard-mode block" {
		t.Errorf("choosing Block: %q", c)
	}
	h.wait("action")
	s := guardSnapshot()
	s.Gateway.Guard.Mode = service.GuardOff
	h.b.set(s)
	h.wait("snapshot")
	h.do(func() {
		if g.choice.Selected != "Off" {
			t.Errorf("after the mode changed to off: %q", g.choice.Selected)
		}
	})
	select {
	case c := <-h.b.calls:
		t.Errorf("showing the new mode called %q", c)
	default:
	}
}
