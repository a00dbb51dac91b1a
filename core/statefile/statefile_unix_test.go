//go:build unix

package statefile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNamedPipeIsNoState: a named pipe where the state is kept does not
// keep Open waiting for a writer that never comes: the state is empty,
// the error says why, and the next write replaces the pipe.
func TestNamedPipeIsNoState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	type opened struct {
		f   *File[seen]
		err error
	}
	got := make(chan opened, 1)
	go func() {
		f, err := Open(testOptions(path))
		got <- opened{f, err}
	}()
	var o opened
	select {
	case o = <-got:
	case <-time.After(30 * time.Second):
		if w, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("Open waited for a writer of the named pipe")
	}
	if o.err == nil || !strings.Contains(o.err.Error(), "is not a file") || len(o.f.Values()) != 0 {
		t.Fatalf("a named pipe: %v, %v", o.f.Values(), o.err)
	}
	o.f.Set("x", seen{At: time.Now(), N: 1})
	o.f.Save()
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the pipe was not replaced by the file: %v, %v", fi, err)
	}
}
