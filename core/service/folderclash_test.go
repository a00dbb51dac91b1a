package service

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sandbox"
)

// TestProjectServerGetsNoOthersDataFolder: a project names its server
// my_notes-f30ac2b5, the very folder name of the person's "my notes"
// (cleaned, with a hash of its name). Approved and started beside it, the
// project's server gets a data folder of its own: its TMPDIR, in the one
// folder of mcptray's its sandbox lets it write, is not in the person's
// server's folder, where that one keeps its secrets as files and caches.
func TestProjectServerGetsNoOthersDataFolder(t *testing.T) {
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	h := newHome(t)
	proj := filepath.Join(h.dir, "proj")
	namesake := sandbox.FolderName("my notes")
	h.writeJSON(h.paths.UserFile(), map[string]any{"folders": []string{proj},
		"mcpServers": map[string]any{"my notes": testServer("mine")}})
	h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{
		"mcpServers": map[string]any{namesake: testServer("theirs")}})
	s := h.startSandboxed()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	waitFor(t, s, "theirs waiting for approval", func(snap Snapshot) bool { return state(snap, namesake) == conn.AwaitingApproval })
	if _, err := s.Approve(ctx, namesake); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "both connected", func(snap Snapshot) bool {
		return state(snap, "my notes") == conn.Connected && state(snap, namesake) == conn.Connected
	})
	tmp := func(name string) string {
		t.Helper()
		r, err := s.Call(ctx, CallRequest{Server: name, Tool: "env", Arguments: mustJSON(t, map[string]any{"name": "TMPDIR"})})
		if err != nil || r.IsError {
			t.Fatalf("%s's TMPDIR: %v %+v", name, err, r)
		}
		return textOf(r.Content)
	}
	mine, theirs := tmp("my notes"), tmp(namesake)
	mineDir := filepath.Join(h.paths.ServersDir(), namesake)
	if !strings.HasPrefix(mine, mineDir+string(filepath.Separator)) {
		t.Fatalf("my notes's TMPDIR is %s, not in %s", mine, mineDir)
	}
	if theirs == mine || strings.HasPrefix(theirs, mineDir+string(filepath.Separator)) {
		t.Errorf("the project's %s writes in my notes's data folder: its TMPDIR is %s", namesake, theirs)
	}
}
