package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptray/mcptray/core/conn"
)

// startWatching starts a service that follows the config files, with no
// project folder, and adds proj through AddFolder, as the window's
// Settings and mcptray folders add do while mcptray runs.
func startWatching(t *testing.T, h *home, proj string) *Service {
	t.Helper()
	s := h.start(true)
	if _, err := s.AddFolder(context.Background(), proj); err != nil {
		t.Fatal(err)
	}
	return s
}

// watchedProject is startWatching with a project folder whose .mcp.json
// holds the server theirs, once theirs is listed: the service, the
// folder and its .mcp.json.
func watchedProject(t *testing.T) (h *home, s *Service, proj, mcp string) {
	t.Helper()
	h = newHome(t)
	proj = filepath.Join(h.dir, "proj")
	mcp = filepath.Join(proj, ".mcp.json")
	h.writeJSON(mcp, map[string]any{"mcpServers": map[string]any{"theirs": testServer("theirs")}})
	s = startWatching(t, h, proj)
	waitFor(t, s, "theirs to be listed", func(s Snapshot) bool { return state(s, "theirs") == conn.AwaitingApproval })
	return h, s, proj, mcp
}

// replaceJSON writes v to path as an editor saving atomically does: a new
// file renamed over the old one.
func (h *home) replaceJSON(path string, v any) {
	h.t.Helper()
	tmp := path + ".new"
	h.writeJSON(tmp, v)
	if err := os.Rename(tmp, path); err != nil {
		h.t.Fatal(err)
	}
}

// markerServer is a server whose command, were it run, leaves the file
// marker behind.
func markerServer(marker string) map[string]any {
	return map[string]any{"command": "/bin/sh", "args": []string{"-c", "echo ran > " + marker}}
}

// TestFolderAddedWhileRunningIsWatched: a project folder added after the
// service started is followed like one listed before it: a changed server
// waits for approval again and its new command does not run; an added
// server waits for approval. Before, the watcher found mcptray's own
// config as the action's reload had left it, loaded nothing, and so never
// began watching the new folder.
func TestFolderAddedWhileRunningIsWatched(t *testing.T) {
	t.Parallel()
	h, s, _, mcp := watchedProject(t)
	ctx := context.Background()
	if _, err := s.Approve(ctx, "theirs"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "theirs to connect once approved", func(s Snapshot) bool { return state(s, "theirs") == conn.Connected })

	marker := filepath.Join(h.dir, "ran")
	h.writeJSON(mcp, map[string]any{"mcpServers": map[string]any{
		"theirs": markerServer(marker),
		"more":   testServer("more"),
	}})
	waitFor(t, s, "the changed server and the added one to wait for approval", func(s Snapshot) bool {
		return state(s, "theirs") == conn.AwaitingApproval && state(s, "more") == conn.AwaitingApproval
	})
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the changed server's new command ran before it was approved (%v)", err)
	}
}

// TestFolderAddedWhileRunningFollowed: the ways a project folder's config
// comes and goes after the folder was added while mcptray runs.
func TestFolderAddedWhileRunningFollowed(t *testing.T) {
	t.Parallel()

	t.Run("its .mcp.json made later", func(t *testing.T) {
		t.Parallel()
		h := newHome(t)
		proj := filepath.Join(h.dir, "proj")
		if err := os.MkdirAll(proj, 0o755); err != nil {
			t.Fatal(err)
		}
		s := startWatching(t, h, proj)
		h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{"mcpServers": map[string]any{"late": testServer("late")}})
		waitFor(t, s, "late to wait for approval", func(s Snapshot) bool { return state(s, "late") == conn.AwaitingApproval })
	})

	t.Run("its .mcp.json replaced by an atomic rename", func(t *testing.T) {
		t.Parallel()
		h, s, _, mcp := watchedProject(t)
		h.replaceJSON(mcp, map[string]any{"mcpServers": map[string]any{"theirs": testServer("theirs"), "renamed": testServer("renamed")}})
		waitFor(t, s, "renamed to wait for approval", func(s Snapshot) bool { return state(s, "renamed") == conn.AwaitingApproval })
		// Still followed after the rename ended the old file's life.
		h.replaceJSON(mcp, map[string]any{"mcpServers": map[string]any{"again": testServer("again")}})
		waitFor(t, s, "again to replace the others", func(s Snapshot) bool {
			_, theirs := s.Find("theirs")
			return state(s, "again") == conn.AwaitingApproval && !theirs
		})
	})

	t.Run("the folder deleted and made again", func(t *testing.T) {
		t.Parallel()
		h, s, proj, mcp := watchedProject(t)
		if err := os.RemoveAll(proj); err != nil {
			t.Fatal(err)
		}
		waitFor(t, s, "theirs to go with its folder", func(s Snapshot) bool { _, ok := s.Find("theirs"); return !ok })
		h.writeJSON(mcp, map[string]any{"mcpServers": map[string]any{"back": testServer("back")}})
		waitFor(t, s, "back to wait for approval", func(s Snapshot) bool { return state(s, "back") == conn.AwaitingApproval })
		h.writeJSON(mcp, map[string]any{"mcpServers": map[string]any{"back": testServer("back"), "later": testServer("later")}})
		waitFor(t, s, "later to wait for approval", func(s Snapshot) bool { return state(s, "later") == conn.AwaitingApproval })
	})

	t.Run("removed, it is no longer followed", func(t *testing.T) {
		t.Parallel()
		h, s, proj, mcp := watchedProject(t)
		if err := s.RemoveFolder(context.Background(), proj); err != nil {
			t.Fatal(err)
		}
		h.writeJSON(mcp, map[string]any{"mcpServers": map[string]any{"ghost": testServer("ghost")}})
		// A later change elsewhere is read: by then the removed folder's
		// change was heard too, were it watched.
		h.writeJSON(filepath.Join(h.dir, ".cursor", "mcp.json"), map[string]any{"mcpServers": map[string]any{"elsewhere": testServer("elsewhere")}})
		snap := waitFor(t, s, "elsewhere to be listed", func(s Snapshot) bool { _, ok := s.Find("elsewhere"); return ok })
		for _, name := range []string{"theirs", "ghost"} {
			if _, ok := snap.Find(name); ok {
				t.Errorf("%s, of a removed folder, is listed", name)
			}
		}
	})
}
