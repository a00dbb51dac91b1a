//go:build unix

package signin

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/oauth"
	"github.com/mcptray/mcptray/core/secret/secrettest"
)

// TestSignInsPipeHoldsNoWatcher: whoever may write mcptray's folder puts
// a named pipe where sign-ins are told. The watcher does not wait on it for
// a writer that never comes (the service's Close would wait for it too): it
// tells of a sign-in it cannot read, as of any, and stops when asked.
func TestSignInsPipeHoldsNoWatcher(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	here := New(Options{Store: secrettest.New(), Dir: dir})
	keys := make(chan string, 4)
	ctx, cancel := context.WithCancel(context.Background())
	run, err := here.Watch(ctx, func(key string) { keys <- key })
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); run() }()
	if err := syscall.Mkfifo(filepath.Join(dir, "locks", File), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case key := <-keys:
		if key != "" {
			t.Errorf("a pipe told %q", key)
		}
	case <-time.After(deadline):
		t.Fatal("the watcher waits on the pipe for a writer")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(deadline):
		t.Fatal("the watcher did not stop")
	}
}

// TestSignInsPipeHoldsNoSignIn: with a named pipe where sign-ins are told
// and no mcptray reading it, a sign-in (mcptray signin while none runs)
// does not wait for a reader: the pipe is replaced by the file.
func TestSignInsPipeHoldsNoSignIn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "locks", File)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	sv := &config.Server{Name: "notes", ConfigName: "notes", Scope: config.User, Transport: config.HTTP, URL: "https://notes.example/mcp"}
	done := make(chan struct{})
	go func() { defer close(done); New(Options{Store: secrettest.New(), Dir: dir}).Tell(sv) }()
	select {
	case <-done:
	case <-time.After(deadline):
		// Let the writer go, so that the test's process can end.
		if f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatal("telling of a sign-in waits for a reader of the pipe")
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != oauth.ServerKey(sv)+"\n" {
		t.Errorf("the file holds %q, %v", b, err)
	}
}
