package service

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sandbox"
)

// TestSandboxRefusalAllowed: a server refused a file in its sandbox shows
// the refusal with the flag that allows it; allowed, it restarts and reads
// the file; the words say what it may do at each step.
func TestSandboxRefusalAllowed(t *testing.T) {
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	h := newHome(t)
	secret := filepath.Join(h.dir, "Documents", "plan.txt")
	if err := os.MkdirAll(filepath.Dir(secret), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("the plan"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := testServer("reader")
	srv["args"] = []string{"-name", "reader", "-read-home-file", "Documents/plan.txt"}
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"reader": srv}})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := h.start(true, func(o *Options) { o.Launcher = self; o.Conn.BaseEnv = append(os.Environ(), "HOME="+h.dir) })
	snap := waitFor(t, s, "a refusal", func(snap Snapshot) bool {
		sv, _ := snap.Find("reader")
		return sv.State == conn.Connected && sv.Sandbox != nil && len(sv.Sandbox.Refusals) > 0
	})
	sv, _ := snap.Find("reader")
	box := sv.Sandbox
	if r := box.Refusals[0]; r.Path != secret || r.Allow != "--read ~/Documents/plan.txt" || r.Label != "Let it read ~/Documents/plan.txt" {
		t.Errorf("refusal %+v", r)
	}
	if !box.Protection.Files || !strings.Contains(box.Words, "Nothing else in your home") {
		t.Errorf("protection %+v, words %q", box.Protection, box.Words)
	}

	ctx := context.Background()
	if err := s.ChangeSandbox(ctx, SandboxChange{Server: "reader", Allow: true, Read: "~/Documents/plan.txt"}); err != nil {
		t.Fatal(err)
	}
	snap = waitFor(t, s, "the restart with the file allowed", func(snap Snapshot) bool {
		sv, _ := snap.Find("reader")
		return sv.State == conn.Connected && sv.Sandbox != nil && slices.Contains(sv.Sandbox.Settings.Read, "~/Documents/plan.txt") && len(sv.Sandbox.Refusals) == 0
	})
	sv, _ = snap.Find("reader")
	if !strings.Contains(sv.Sandbox.Words, "read ~/Documents/plan.txt") || sv.Sandbox.Grants[0].Deny != "--read ~/Documents/plan.txt" {
		t.Errorf("words %q, grants %+v", sv.Sandbox.Words, sv.Sandbox.Grants)
	}

	if err := s.SetSandbox(ctx, "reader", false); err != nil {
		t.Fatal(err)
	}
	snap = waitFor(t, s, "the sandbox off", func(snap Snapshot) bool {
		sv, _ := snap.Find("reader")
		return sv.Sandbox != nil && sv.Sandbox.Off
	})
	sv, _ = snap.Find("reader")
	if sv.Sandbox.Protection.Files || !strings.Contains(sv.Sandbox.Words, "without a sandbox") {
		t.Errorf("off: %+v %q", sv.Sandbox.Protection, sv.Sandbox.Words)
	}
	if err := s.ChangeSandbox(ctx, SandboxChange{Server: "reader", Allow: true, Read: "Documents"}); err == nil {
		t.Error("a relative path was taken")
	}
	if err := s.ChangeSandbox(ctx, SandboxChange{Server: "reader", Allow: true, Read: "/a", Port: 80}); err == nil {
		t.Error("two things at once were taken")
	}
}
