package config

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestProjectFileAPipe: a project's server may change its project, and
// made its .mcp.json a named pipe. Reading the project's config, and
// watching it, do not wait on it: the file is a problem, and the other
// servers load.
func TestProjectFileAPipe(t *testing.T) {
	folder := t.TempDir()
	file := filepath.Join(folder, ".mcp.json")
	if err := syscall.Mkfifo(file, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan *Problem, 1)
	go func() {
		_ = stateOf(file)
		_, p := readSource(Source{Scope: Local, Format: MCPServers, Folder: folder, File: file})
		done <- p
	}()
	select {
	case p := <-done:
		if p == nil {
			t.Error("a named pipe read as a config file, with no problem said")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a project's config waits on the server's named pipe")
	}
}
