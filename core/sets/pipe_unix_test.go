//go:build unix

package sets

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestAPipeInTheFilesPlaceIsNotRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A named pipe in the file's place neither blocks nor is read.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	if _, err := Read(fifo); err == nil || !strings.Contains(err.Error(), "not a plain file") {
		t.Errorf("a named pipe: %v", err)
	}
}
