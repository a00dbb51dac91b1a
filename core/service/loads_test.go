package service

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// TestOneLoadPerAction: an action works from the set in use and loads the
// config once, after its write, so that what it answers shows the change.
// Approve loaded it three times, and SignInIdP three times too.
func TestOneLoadPerAction(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	proj := filepath.Join(h.dir, "proj")
	h.writeJSON(h.paths.UserFile(), map[string]any{"folders": []string{proj}})
	h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{
		"mcpServers": map[string]any{"theirs": testServer("theirs")},
	})
	s := h.start(false, func(o *Options) { o.Only = []string{} })
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	for _, act := range []struct {
		name string
		do   func() error
	}{
		{"Approve", func() error { _, err := s.Approve(ctx, "theirs"); return err }},
		{"Deny", func() error { _, err := s.Deny(ctx, "theirs"); return err }},
		{"Disable", func() error { return s.Disable(ctx, "theirs") }},
		{"Enable", func() error { return s.Enable(ctx, "theirs") }},
		{"ChangeSandbox", func() error {
			return s.ChangeSandbox(ctx, SandboxChange{Server: "theirs", Allow: true, Host: "api.example.com"})
		}},
	} {
		before := s.loads.Load()
		if err := act.do(); err != nil {
			t.Fatalf("%s: %v", act.name, err)
		}
		if n := s.loads.Load() - before; n != 1 {
			t.Errorf("%s loaded the config %d times, want once", act.name, n)
		}
	}
}

// TestWatcherKnowsOwnWrite: the watcher hears of an action's own write a
// moment later and, finding every file as the action's load left it, loads
// nothing; a write by someone else is still read.
func TestWatcherKnowsOwnWrite(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	proj := filepath.Join(h.dir, "proj")
	h.writeJSON(h.paths.UserFile(), map[string]any{"folders": []string{proj}})
	h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{
		"mcpServers": map[string]any{"theirs": testServer("theirs")},
	})
	s := h.start(true, func(o *Options) { o.Only = []string{} })
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	skipped := s.skips.Subscribe(ctx)
	before := s.loads.Load()
	if _, err := s.Approve(ctx, "theirs"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-skipped:
	case <-ctx.Done():
		t.Fatal("the watcher never looked at the approval's write")
	}
	if n := s.loads.Load() - before; n != 1 {
		t.Errorf("the approval and the watcher loaded the config %d times, want once", n)
	}
	// Someone else's write is read.
	h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{
		"mcpServers": map[string]any{"theirs": testServer("theirs"), "more": testServer("more")},
	})
	waitFor(t, s, "the other write to be read", func(sn Snapshot) bool {
		return slices.ContainsFunc(sn.Servers, func(sv Server) bool { return sv.Name == "more" })
	})
}
