package config

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/sandbox"
)

// TestSandboxAskNeedsApproval: a project's entry that asks for more of its
// sandbox has another approval key, so the approval given before does not
// cover it; an entry that asks nothing keeps the key it always had.
func TestSandboxAskNeedsApproval(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	proj := h.folder(t, "app")
	h.userFile(t, "", proj)
	mcp := filepath.Join(proj, ".mcp.json")
	writeFile(t, mcp, `{"mcpServers": {"weather": {"command": "npx", "args": ["-y", "weather-mcp"]}}}`)
	l := h.loader(nil)
	before := entryNamed(t, l.Load(), "weather")
	plain := before.Server
	plain.SandboxAsk = sandbox.Settings{}
	if before.ApprovalKey != ApprovalKey(&plain) {
		t.Fatal("an entry that asks nothing of its sandbox changed key")
	}
	if err := l.Approvals.Record(before.ApprovalKey, Decision{Approval: Approved, Name: "weather", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if e := entryNamed(t, l.Load(), "weather"); e.Approval != Approved {
		t.Fatalf("approved, it is %s", e.Approval)
	}

	writeFile(t, mcp, `{"mcpServers": {"weather": {"command": "npx", "args": ["-y", "weather-mcp"],
		"mcptray": {"sandbox": {"read": ["./data", "~/Documents"], "hosts": ["api.weather.gov"], "ports": [8443]}}}}}`)
	after := entryNamed(t, l.Load(), "weather")
	if after.ApprovalKey == before.ApprovalKey || after.Approval != Undecided {
		t.Errorf("widened by its own file, the server is %s under key %s (was %s)", after.Approval, after.ApprovalKey, before.ApprovalKey)
	}
	want := sandbox.Settings{Read: []string{filepath.Join(proj, "data"), "~/Documents"}, Hosts: []string{"api.weather.gov"}, Ports: []int{8443}}
	if !slices.Equal(after.SandboxAsk.Read, want.Read) || !slices.Equal(after.Sandbox.Hosts, want.Hosts) || !slices.Equal(after.Sandbox.Ports, want.Ports) {
		t.Errorf("asked %+v, got %+v (in force %+v)", want, after.SandboxAsk, after.Sandbox)
	}
}

// TestSandboxPersonSettings: the person's settings, kept in mcptray's file,
// reach the server without changing its approval key; the file keeps
// nothing once they are taken back.
func TestSandboxPersonSettings(t *testing.T) {
	t.Parallel()
	h := newTestHome(t)
	h.userFile(t, `{"notes": {"command": "notes-mcp"}}`)
	l := h.loader(nil)
	key := entryNamed(t, l.Load(), "notes").ApprovalKey
	err := ModifySandbox(h.paths.UserFile(), "notes", func(s *sandbox.Settings) {
		s.Write = append(s.Write, "/srv/notes")
		s.Off = true
	})
	if err != nil {
		t.Fatal(err)
	}
	e := entryNamed(t, l.Load(), "notes")
	if !e.Sandbox.Off || !slices.Equal(e.Sandbox.Write, []string{"/srv/notes"}) || e.ApprovalKey != key {
		t.Errorf("in force %+v, key changed: %v", e.Sandbox, e.ApprovalKey != key)
	}
	if err := ModifySandbox(h.paths.UserFile(), "notes", func(s *sandbox.Settings) { *s = sandbox.Settings{} }); err != nil {
		t.Fatal(err)
	}
	u, err := ReadUserFile(h.paths.UserFile())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := u.rest[sandboxKey]; ok {
		t.Errorf("nothing left to keep, the file still has %q", sandboxKey)
	}
}
