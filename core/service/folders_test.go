package service

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/conn"
)

// TestFolders: adding a folder brings its servers in, waiting for
// approval; removing it takes them out; bad folders are refused in plain
// words.
func TestFolders(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	proj := filepath.Join(h.dir, "proj")
	h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{
		"mcpServers": map[string]any{"theirs": testServer("theirs")},
	})
	s := h.start(false)
	ctx := context.Background()

	res, err := s.AddFolder(ctx, proj)
	if err != nil {
		t.Fatal(err)
	}
	if res.Folder != proj || res.Waiting != 1 {
		t.Errorf("AddFolder = %+v, want %s with 1 server waiting", res, proj)
	}
	snap := waitFor(t, s, "theirs to wait for approval", func(s Snapshot) bool { return state(s, "theirs") == conn.AwaitingApproval })
	if !slices.Contains(snap.Folders, proj) {
		t.Errorf("after AddFolder the folders are %q", snap.Folders)
	}
	if _, err := s.AddFolder(ctx, proj); CodeOf(err) != Invalid {
		t.Errorf("adding it twice = %v, want invalid", err)
	}
	file := filepath.Join(h.dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"relative/dir", filepath.Join(h.dir, "missing"), file} {
		if _, err := s.AddFolder(ctx, bad); CodeOf(err) != Invalid {
			t.Errorf("AddFolder(%s) = %v, want invalid", bad, err)
		}
	}

	if err := s.RemoveFolder(ctx, proj+"/"); err != nil {
		t.Fatal(err)
	}
	u, err := config.ReadUserFile(h.paths.UserFile())
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Folders) != 0 {
		t.Errorf("folders after RemoveFolder = %q", u.Folders)
	}
	if _, ok := mustSnapshot(t, s).Find("theirs"); ok {
		t.Error("a removed folder's server is still listed")
	}
	if err := s.RemoveFolder(ctx, proj); CodeOf(err) != NotFound {
		t.Errorf("removing it twice = %v, want not-found", err)
	}
}

func mustSnapshot(t *testing.T, s *Service) Snapshot {
	t.Helper()
	snap, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestOwnWriteIsKnown: the config an action put in use equals what the
// watcher loads from the same files afterwards, so follow leaves the
// servers be rather than applying the action's change a second time.
func TestOwnWriteIsKnown(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	proj := filepath.Join(h.dir, "proj")
	h.writeJSON(filepath.Join(proj, ".mcp.json"), map[string]any{
		"mcpServers": map[string]any{"theirs": testServer("theirs")},
	})
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{"mine": testServer("mine")}})
	s := h.start(false)
	if _, err := s.AddFolder(context.Background(), proj); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Approve(context.Background(), "theirs"); err != nil {
		t.Fatal(err)
	}
	if again := s.loader.Load(); !reflect.DeepEqual(s.current(), again) {
		t.Errorf("a second load of unchanged files differs from the config in use:\nin use: %+v\nloaded: %+v", s.current(), again)
	}
}
