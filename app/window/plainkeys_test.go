package window

import (
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/service"
)

// TestWindowOffersToMoveAPlainTextKey: an imported server whose file
// holds a key in plain text shows a banner naming the file, with a button
// that asks the service to keep the key in the keychain; afterwards the
// window says that the other app's file still holds it. A server without
// one shows neither.
func TestWindowOffersToMoveAPlainTextKey(t *testing.T) {
	s := sampleSnapshot()
	s.Servers = append(s.Servers, service.Server{Name: "gh", Scope: config.Imported, Transport: config.Stdio, Command: "npx",
		Origin:    config.Origin{File: "/home/me/.config/Claude/claude_desktop_config.json", App: "Claude Desktop"},
		EnvNames:  []string{"GITHUB_TOKEN"},
		PlainKeys: []string{"GITHUB_TOKEN"}, State: service.Connected, Runnable: true})
	h := newHarness(t, s, Options{Server: "gh"})
	d := h.v.detail
	h.do(func() {
		if !d.plainKeys.Visible() || !d.moveKeys.Visible() {
			t.Fatal("no banner for a key in plain text")
		}
		for _, want := range []string{"API key (GITHUB_TOKEN) is stored in plain text in /home/me/.config/Claude/claude_desktop_config.json",
			"Keep it in your keychain instead", "Claude Desktop's file is not changed"} {
			if !strings.Contains(d.plainKeys.Text, want) {
				t.Errorf("the banner says %q, want %q", d.plainKeys.Text, want)
			}
		}
	})
	h.tap(d.moveKeys)
	if c := h.call(); c != "move-secrets gh" {
		t.Errorf("the backend was asked to %q", c)
	}
	h.wait("action")
	h.do(func() {
		top := h.win.Canvas().Overlays().Top()
		if top == nil || !strings.Contains(strings.Join(labels(top), "\n"), "claude_desktop_config.json still holds it in plain text") {
			t.Errorf("after the move the window says %q", labels(top))
		}
	})

	h.sel("files")
	h.do(func() {
		if d.plainKeys.Visible() || d.moveKeys.Visible() {
			t.Error("a server without a plain-text key shows the banner")
		}
	})
}
