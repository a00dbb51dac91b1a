//go:build unix

package conn

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestHistoryNotAFile: a named pipe where the connect times are kept (put
// there by another program of the person's) neither keeps a manager from
// starting, waiting for a writer that never comes, nor stops its servers
// from connecting; the pipe is replaced by the file.
func TestHistoryNotAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "connect-times.json")
	if err := syscall.Mkfifo(file, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	got := make(chan []string, 1)
	go func() { got <- connectInOrder(t, file, stdioEntry("a"), stdioEntry("b")) }()
	select {
	case order := <-got:
		if !slices.Equal(order, []string{"a", "b"}) {
			t.Errorf("started %v, want config order", order)
		}
	case <-time.After(30 * time.Second):
		// Unblock the open that waits for a writer, so the test ends.
		if w, err := os.OpenFile(file, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("the manager waited for a writer of the named pipe where its connect times are kept")
	}
	if fi, err := os.Lstat(file); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the pipe was not replaced by the file: %v, %v", fi, err)
	}
}
