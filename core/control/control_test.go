package control

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcptray/mcptray/core/config"
	"github.com/mcptray/mcptray/core/filelock"
	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service"
)

func testPaths(t *testing.T) config.Paths {
	t.Helper()
	dir := t.TempDir()
	p, err := config.NewPaths("linux", func(k string) (string, bool) {
		switch k {
		case "HOME":
			return dir, true
		case "XDG_RUNTIME_DIR":
			return filepath.Join(dir, "run"), true
		}
		return "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	p.Enterprise = filepath.Join(dir, "managed.json")
	return p
}

// serve runs a service behind a control endpoint until the test ends.
func serve(t *testing.T, p config.Paths) (*Endpoint, *Listener) {
	t.Helper()
	ln, err := Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.New(service.Options{Paths: p, Store: secrettest.New()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv := &Endpoint{API: svc, OpenWindow: func(string) error { return nil }}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
		ln.Close()
		svc.Close()
	})
	return srv, ln
}

// TestOneInstance: the socket is private, a second instance is refused,
// and clients reach the first.
func TestOneInstance(t *testing.T) {
	t.Parallel()
	p := testPaths(t)
	serve(t, p)

	fi, err := os.Stat(SocketPath(p))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode = %v, want a socket with 0600", fi.Mode())
	}
	if di, _ := os.Stat(p.ControlDir()); di.Mode().Perm() != 0o700 {
		t.Errorf("socket folder mode = %v, want 0700", di.Mode().Perm())
	}
	if _, err := Listen(p); !errors.Is(err, ErrRunning) {
		t.Errorf("a second Listen = %v, want ErrRunning", err)
	}
	cl, err := Dial(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if cl.PID != os.Getpid() {
		t.Errorf("the running instance says pid %d, want %d", cl.PID, os.Getpid())
	}
	snap, err := cl.Snapshot(context.Background())
	if err != nil || snap.Version == "" {
		t.Errorf("Snapshot over the socket = %+v, %v", snap, err)
	}
	// Errors keep their code across the socket.
	if _, err := cl.Approve(context.Background(), "ghost"); service.CodeOf(err) != service.NotFound {
		t.Errorf("Approve(ghost) over the socket = %v (code %q), want not-found", err, service.CodeOf(err))
	}
}

// TestListenOutlastsAProbe: an mcptray that starts while a client holds
// the instance lock for a moment, to ask whether one runs, waits the
// moment out and runs, rather than take the client for a running mcptray.
func TestListenOutlastsAProbe(t *testing.T) {
	t.Parallel()
	p := testPaths(t)
	if err := privateDir(p.ControlDir()); err != nil {
		t.Fatal(err)
	}
	// The client's look, caught while it holds the lock: it lets go once
	// the starting mcptray has found the lock taken.
	unlock, ok, err := filelock.TryLock(lockPath(p))
	if err != nil || !ok {
		t.Fatalf("TryLock = %v, %v", ok, err)
	}
	busy := 0
	ln, err := listen(p, func() {
		if busy++; busy == 1 {
			unlock()
		}
	})
	if err != nil {
		t.Fatalf("Listen beside a client's look = %v, want it to run", err)
	}
	defer ln.Close()
	if busy != 1 {
		t.Errorf("Listen found the lock taken %d times, want once", busy)
	}
	// A running mcptray, which holds the lock throughout, is still found.
	if _, err := Listen(p); !errors.Is(err, ErrRunning) {
		t.Errorf("a second Listen = %v, want ErrRunning", err)
	}
}

// TestStaleSocket: a socket left by an instance that died is replaced, and
// with no instance Dial says so.
func TestStaleSocket(t *testing.T) {
	t.Parallel()
	p := testPaths(t)
	if err := privateDir(p.ControlDir()); err != nil {
		t.Fatal(err)
	}
	// A socket file nobody listens on, as a killed mcptray leaves it.
	l, err := net.Listen("unix", SocketPath(p))
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	if _, err := os.Stat(SocketPath(p)); err != nil {
		t.Fatalf("the stale socket is not there: %v", err)
	}
	if _, err := Dial(context.Background(), p); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("Dial with only a stale socket = %v, want ErrNotRunning", err)
	}
	serve(t, p)
	cl, err := Dial(context.Background(), p)
	if err != nil {
		t.Fatalf("Dial after the stale socket was replaced: %v", err)
	}
	cl.Close()
}

// TestEventsAndFocus: change notices and window requests reach clients.
func TestEventsAndFocus(t *testing.T) {
	t.Parallel()
	p := testPaths(t)
	srv, _ := serve(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cl, err := Dial(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	notices, err := cl.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	<-notices // the first comes at once
	if err := cl.PauseAll(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-notices; !ok {
		t.Fatal("the events stream ended")
	}
	if snap, _ := cl.Snapshot(ctx); !snap.Paused {
		t.Error("not paused after PauseAll over the socket")
	}

	if srv.WindowOpen() {
		t.Error("a window counts as open before any follows")
	}
	focus, err := cl.FocusRequests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The request above is answered once the server has registered it;
	// OpenWindow goes through the same server, so wait for that.
	for !srv.Focus("github") {
		if err := cl.OpenWindow(ctx, ""); err != nil {
			t.Fatal(err)
		}
	}
	for got := range focus {
		if got.Server == "github" {
			break
		}
	}
	if !srv.WindowOpen() {
		t.Error("a window that follows focus requests does not count as open")
	}
}
