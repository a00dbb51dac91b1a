package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptray/mcptray/core/sandbox"
)

// These tests are servers that change what they may write, then wait for
// mcptray to act on it outside their sandbox (core/sandbox's package doc
// lists each place).

// TestRuntimeVersionLookSandboxed: a server may change the folder its
// node lies in (a folder on its command line), and replaced node with its
// own program. mcptray, asking node its version to describe the server,
// runs that program in the server's sandbox: it runs (it leaves a note in
// its own folder) and cannot write in the home.
func TestRuntimeVersionLookSandboxed(t *testing.T) {
	if sandbox.ABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	h := newHome(t)
	marker := filepath.Join(h.dir, "written-outside-the-sandbox")
	looked := filepath.Join(h.dir, "tools", "looked")
	node := filepath.Join(h.dir, "tools", "node")
	h.writeFiles(map[string]string{"tools/README": "the server's own folder"})
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then\n  echo looked > " + looked + "\n  echo pwned > " + marker + "\n  echo v20.0.0\nfi\n"
	if err := os.WriteFile(node, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h.writeJSON(h.paths.UserFile(), map[string]any{"mcpServers": map[string]any{
		"weather": map[string]any{"command": node, "args": []string{filepath.Join(h.dir, "tools")}}}})
	s := h.startSandboxed()
	box, err := s.SandboxOf(context.Background(), "weather")
	if err != nil {
		t.Fatal(err)
	}
	if !box.Protection.Files {
		t.Fatalf("no sandbox: %+v", box.Protection)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("mcptray ran the server's node outside its sandbox: it wrote in the home")
	}
	if _, err := os.Stat(looked); err != nil {
		t.Errorf("the look did not run the server's node in its sandbox: %v", err)
	}
}
