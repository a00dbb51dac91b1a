package service

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSandboxGrantSpellings: a folder allowed in one spelling and taken
// back in another is taken back: kept in its one spelling, gone from the
// config and from the policy the server starts with. So is one kept in an
// old spelling (as an older mcptray kept what it was given, or a hand
// edit). A relative path is refused in words.
func TestSandboxGrantSpellings(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	ssh := filepath.Join(h.dir, ".ssh")
	if err := os.MkdirAll(ssh, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ssh, filepath.Join(h.dir, "keys")); err != nil {
		t.Fatal(err)
	}
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"w": testServer("w")}})
	s := h.start(false, func(o *Options) { o.Only = []string{} })
	ctx := t.Context()
	reads := func(what string) bool {
		t.Helper()
		box, err := s.SandboxOf(ctx, "w")
		if err != nil {
			t.Fatal(err)
		}
		if box.Policy == nil {
			t.Fatal("no policy")
		}
		kept := slices.ContainsFunc(box.Settings.Read, func(p string) bool { return strings.Contains(p, "ssh") || strings.Contains(p, "keys") })
		return kept || slices.Contains(box.Policy.Read, ssh)
	}
	spellings := []string{"~/.ssh", "$HOME/.ssh", "${HOME}/.ssh", ssh, ssh + "/", ssh + "/../.ssh", "~/keys", filepath.Join(h.dir, "keys") + "/"}
	for i, allow := range spellings {
		deny := spellings[(i+1)%len(spellings)]
		if err := s.ChangeSandbox(ctx, SandboxChange{Server: "w", Allow: true, Read: allow}); err != nil {
			t.Fatalf("allow --read %s: %v", allow, err)
		}
		if err := s.ChangeSandbox(ctx, SandboxChange{Server: "w", Allow: true, Read: deny}); err != nil {
			t.Fatalf("allow --read %s: %v", deny, err)
		}
		box, _ := s.SandboxOf(ctx, "w")
		if !slices.Equal(box.Settings.Read, []string{"~/.ssh"}) || !slices.Contains(box.Policy.Read, ssh) {
			t.Errorf("allowed as %s and %s: kept %q, the policy reads it: %v", allow, deny, box.Settings.Read, slices.Contains(box.Policy.Read, ssh))
		}
		if err := s.ChangeSandbox(ctx, SandboxChange{Server: "w", Read: deny}); err != nil {
			t.Errorf("allowed as %s, deny --read %s: %v", allow, deny, err)
		}
		if reads("after deny") {
			t.Errorf("allowed as %s, denied as %s: it may still read it", allow, deny)
		}
	}

	// Kept in old spellings by an older mcptray or a hand edit.
	h.writeJSON(h.paths.UserFile(), map[string]any{
		"mcpServers": map[string]any{"w": testServer("w")},
		"sandbox":    map[string]any{"w": map[string]any{"read": []string{"$HOME/.ssh", "~/keys/"}, "write": []string{"~/notes/"}}},
	})
	s.reload()
	if !reads("old spellings") {
		t.Fatal("the old spellings do not give the folder")
	}
	if err := s.ChangeSandbox(ctx, SandboxChange{Server: "w", Read: ssh}); err != nil {
		t.Fatalf("deny --read %s: %v", ssh, err)
	}
	if reads("after deny") {
		t.Error("kept in old spellings and denied, it may still read it")
	}
	if err := s.ChangeSandbox(ctx, SandboxChange{Server: "w", Write: filepath.Join(h.dir, "notes")}); err != nil {
		t.Errorf("deny --write ~/notes kept as ~/notes/: %v", err)
	}
	if box, _ := s.SandboxOf(ctx, "w"); !box.Settings.Empty() {
		t.Errorf("left: %+v", box.Settings)
	}

	for _, p := range []string{"Documents", "./data", "~bob/x"} {
		err := s.ChangeSandbox(ctx, SandboxChange{Server: "w", Allow: true, Read: p})
		if err == nil || !strings.Contains(err.Error(), "not a full path") {
			t.Errorf("allow --read %s: %v", p, err)
		}
	}
}
