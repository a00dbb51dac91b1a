package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/core/bundle"
	"github.com/mcptray/mcptray/core/bundle/bundletest"
	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
	"github.com/mcptray/mcptray/core/sandbox"
	"github.com/mcptray/mcptray/core/sandbox/sandboxtest"
)

// TestProjectServerGetsNoOthersDataFolder: a project names its server
// my_notes-f30ac2b5, the very folder name of the person's "my notes"
// (cleaned, with a hash of its name). Approved and started beside it, the
// project's server gets a data folder of its own: its TMPDIR, in the one
// folder of mcptray's its sandbox lets it write, is not in the person's
// server's folder, where that one keeps its secrets as files and caches.
func TestProjectServerGetsNoOthersDataFolder(t *testing.T) {
	t.Parallel()
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

// TestProjectServerSharingAFolderDoesNotRun: a project's server whose name
// gives the same data folder as the person's (the two names clean to one
// and their 32-bit hashes agree, which can be found on purpose) does not
// run, and says whose folder it would be; the person's runs.
func TestProjectServerSharingAFolderDoesNotRun(t *testing.T) {
	t.Parallel()
	mine, theirs := sandboxtest.CollidingNames(t)
	h := newHome(t)
	proj := filepath.Join(h.dir, "proj")
	h.writeJSON(h.paths.UserFile(), map[string]any{"folders": []string{proj},
		"mcpServers": map[string]any{mine: testServer("mine")}})
	h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{"mcpServers": map[string]any{theirs: testServer("theirs")}})
	s := h.start(false)
	snap := waitFor(t, s, "mine connected", func(snap Snapshot) bool { return state(snap, mine) == conn.Connected })
	sv, ok := snap.Find(theirs)
	if !ok || sv.Runnable || sv.State != conn.Disabled || !strings.Contains(sv.Reason, `its data folder would be that of "`+mine+`"; rename it`) {
		t.Errorf("the project's %q: %+v", theirs, sv)
	}
	if _, err := s.Approve(t.Context(), theirs); err == nil {
		t.Errorf("the project's %q was approved", theirs)
	}
}

// TestBundleTakesNoOthersFolder: a hostile bundle named (in its manifest)
// so that its folder is that of a bundle the person installed is refused
// in plain words: installed, it would have replaced the person's
// bundle's files, which the person's server then runs, and shared its
// data folder.
func TestBundleTakesNoOthersFolder(t *testing.T) {
	t.Parallel()
	mine, theirs := sandboxtest.CollidingNames(t)
	h := newHome(t)
	if err := os.Mkdir(filepath.Join(h.dir, "notes"), 0o700); err != nil {
		t.Fatal(err)
	}
	s := h.start(false, func(o *Options) { o.Only = []string{} })
	ctx := t.Context()
	values := map[string][]string{"folder": {"~/notes"}}
	named := func(name, description string) string {
		return bundletest.Pack(t, bundletest.Testdata("node"), func(m map[string]any) { m["name"], m["description"] = name, description })
	}
	res, err := s.InstallBundle(ctx, BundleRequest{File: named(mine, "the person's"), Values: values})
	if err != nil || res.Name != mine {
		t.Fatalf("installing %q: %+v, %v", mine, res, err)
	}
	_, err = s.InstallBundle(ctx, BundleRequest{File: named(theirs, "the hostile one"), Values: values})
	if CodeOf(err) != Invalid || !strings.Contains(err.Error(), `"`+mine+`"`) {
		t.Errorf("installing %q beside %q: %v", theirs, mine, err)
	}
	if m, err := bundle.ReadManifest(res.Cwd); err != nil || m.Description != "the person's" {
		t.Errorf("the person's bundle's files were replaced: %q, %v", m.Description, err)
	}
	u, err := config.ReadUserFile(h.paths.UserFile())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := u.MCPServers[theirs]; ok {
		t.Errorf("%q was written to the config", theirs)
	}

	// Written into the config by hand and removed, the namesake does not
	// take the person's bundle's files with it.
	if err := config.ModifyUserFile(h.paths.UserFile(), func(u *config.UserFile) error {
		u.MCPServers[theirs] = u.MCPServers[mine]
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s.reload()
	if _, err := s.Remove(ctx, theirs); err != nil {
		t.Fatal(err)
	}
	if m, err := bundle.ReadManifest(res.Cwd); err != nil || m.Description != "the person's" {
		t.Errorf("removing %q removed the person's bundle's files: %v", theirs, err)
	}
}
