package service

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sandbox"
)

// planting is a project's server that, each time it starts, adds a line
// to a file at the top of its data folder (a package it plants in its
// cache, or a script it knows the next holder of the folder runs), then
// runs the test server called name.
func planting(name string) map[string]any {
	return map[string]any{"command": "/bin/sh", "args": []string{"-c",
		`echo planted >> "$TMPDIR/../planted" && exec "$0" -name "$1"`, testServerBin, name}}
}

// TestNamesakeGetsNoPlantedData: a project's .mcp.json has a server
// "github", approved and run: it plants a file in its data folder. The
// person then adds a "github" of their own, which takes the name (the
// project's becomes github-2). The person's server starts in a data
// folder of its own, without what the project's left there; the
// project's, its owner unchanged, keeps its data under its new name.
func TestNamesakeGetsNoPlantedData(t *testing.T) {
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	h := newHome(t)
	proj := filepath.Join(h.dir, "proj")
	h.writeJSON(h.paths.UserFile(), map[string]any{"folders": []string{proj}})
	h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{"mcpServers": map[string]any{"github": planting("theirs")}})
	s := h.startSandboxed()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	waitFor(t, s, "theirs waiting for approval", func(snap Snapshot) bool { return state(snap, "github") == conn.AwaitingApproval })
	if _, err := s.Approve(ctx, "github"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "theirs connected", func(snap Snapshot) bool { return state(snap, "github") == conn.Connected })
	folder := func(name string) string { return filepath.Join(h.paths.ServersDir(), sandbox.FolderName(name)) }
	if b, err := os.ReadFile(filepath.Join(folder("github"), "planted")); string(b) != "planted\n" {
		t.Fatalf("the project's server planted nothing: %q, %v", b, err)
	}

	mine, _ := json.Marshal(testServer("mine"))
	if _, err := s.Add(ctx, AddRequest{Name: "github", Entry: mine}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "mine as github, theirs as github-2, both connected", func(snap Snapshot) bool {
		sv, _ := snap.Find("github")
		return sv.Scope == config.User && sv.State == conn.Connected && state(snap, "github-2") == conn.Connected
	})
	r, err := s.Call(ctx, CallRequest{Server: "github", Tool: "env", Arguments: mustJSON(t, map[string]any{"name": "TMPDIR"})})
	if err != nil || r.IsError {
		t.Fatalf("my github's TMPDIR: %v %+v", err, r)
	}
	if tmp := textOf(r.Content); !strings.HasPrefix(tmp, folder("github")+string(filepath.Separator)) {
		t.Fatalf("my github's TMPDIR is %s, not in %s", tmp, folder("github"))
	}
	if b, err := os.ReadFile(filepath.Join(folder("github"), "planted")); !os.IsNotExist(err) {
		t.Errorf("my github was handed the project's data folder: planted holds %q (%v)", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(folder("github-2"), "planted")); string(b) != "planted\nplanted\n" {
		t.Errorf("renamed github-2 by my github, the project's server lost its data: %q, %v", b, err)
	}
}

// TestSameCommandOtherOriginInheritsNothing: the person's "notes" keeps a
// memo in its data folder. In one change of the config the person takes
// notes out and adds a project folder whose .mcp.json has "evil", with
// notes's very command and arguments. A rename keeps its data only within
// one owner (one scope and file): evil starts with an empty folder, and
// notes's goes with it.
func TestSameCommandOtherOriginInheritsNothing(t *testing.T) {
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	h := newHome(t)
	proj := filepath.Join(h.dir, "proj")
	notes := testServer("notes")
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"notes": notes}})
	h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{"mcpServers": map[string]any{"evil": notes}})
	s := h.startSandboxed()
	waitFor(t, s, "notes connected", func(snap Snapshot) bool { return state(snap, "notes") == conn.Connected })
	folder := func(name string) string { return filepath.Join(h.paths.ServersDir(), sandbox.FolderName(name)) }
	if err := os.WriteFile(filepath.Join(folder("notes"), "memo.txt"), []byte("what notes keeps"), 0o600); err != nil {
		t.Fatal(err)
	}

	h.writeJSON(h.paths.UserFile(), map[string]any{"folders": []string{proj}})
	s.reload()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	waitFor(t, s, "evil waiting for approval", func(snap Snapshot) bool { return state(snap, "evil") == conn.AwaitingApproval })
	if _, err := s.Approve(ctx, "evil"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "evil connected", func(snap Snapshot) bool { return state(snap, "evil") == conn.Connected })
	if b, err := os.ReadFile(filepath.Join(folder("evil"), "memo.txt")); !os.IsNotExist(err) {
		t.Errorf("the project's evil, with notes's command, was handed notes's data: %q (%v)", b, err)
	}
	waitDataRemoval(t, s, "notes")
	if _, err := os.Stat(folder("notes")); !os.IsNotExist(err) {
		t.Errorf("notes, taken out, left its data folder: %v", err)
	}
}

// TestRemovedNamesakeLeavesNoDataToProject: the person's "github" keeps
// its data (secrets as files, a token cache) beside a project's "github",
// which runs as github-2. The person removes theirs, and the project's
// takes the name back: it starts in its own folder, with its own data,
// and none of the person's.
func TestRemovedNamesakeLeavesNoDataToProject(t *testing.T) {
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	h := newHome(t)
	proj := filepath.Join(h.dir, "proj")
	h.writeJSON(h.paths.UserFile(), map[string]any{"folders": []string{proj},
		"mcpServers": map[string]any{"github": testServer("mine")}})
	h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{"mcpServers": map[string]any{"github": planting("theirs")}})
	s := h.startSandboxed()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	waitFor(t, s, "theirs waiting for approval", func(snap Snapshot) bool { return state(snap, "github-2") == conn.AwaitingApproval })
	if _, err := s.Approve(ctx, "github-2"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "both connected", func(snap Snapshot) bool {
		return state(snap, "github") == conn.Connected && state(snap, "github-2") == conn.Connected
	})
	folder := func(name string) string { return filepath.Join(h.paths.ServersDir(), sandbox.FolderName(name)) }
	if err := os.WriteFile(filepath.Join(folder("github"), "token"), []byte("the person's"), 0o600); err != nil {
		t.Fatal(err)
	}

	if _, err := s.Remove(ctx, "github"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "theirs connected as github", func(snap Snapshot) bool {
		sv, _ := snap.Find("github")
		return sv.Scope == config.Local && sv.State == conn.Connected
	})
	if b, err := os.ReadFile(filepath.Join(folder("github"), "token")); !os.IsNotExist(err) {
		t.Errorf("the project's github was handed the person's data folder: token holds %q (%v)", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(folder("github"), "planted")); string(b) != "planted\nplanted\n" {
		t.Errorf("back as github, the project's server lost its data: %q, %v", b, err)
	}
}
