package control

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/secret/secrettest"
	"github.com/mcptray/mcptray/core/service"
)

// TestQuit: mcptray quit stops the running mcptray as its tray's Quit
// does: the request is answered, then the control endpoint stops; the
// instance lock stays until the instance lets its listener go. An mcptray that cannot be stopped so says why.
func TestQuit(t *testing.T) {
	t.Parallel()
	p := testPaths(t)
	ln, err := Listen(p)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	svc, err := service.New(service.Options{Paths: p, Store: secrettest.New()})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	ctx, quit := context.WithCancel(context.Background())
	defer quit()
	if err := svc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv := &Endpoint{API: svc, Quit: quit}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()

	cl, err := Dial(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.Quit(t.Context()); err != nil {
		t.Fatalf("Quit: %v", err)
	}
	select {
	case <-served:
	case <-time.After(10 * time.Second):
		t.Fatal("the control endpoint still serves 10 s after Quit")
	}
	// The endpoint has stopped, the instance has not closed yet (its
	// servers, its record): it still runs, and mcptray quit waits.
	short, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if err := WaitStopped(short, p); err == nil {
		t.Fatal("the instance lock went with the endpoint: mcptray quit would return before the record is written")
	}
	ln.Close()
	if err := WaitStopped(t.Context(), p); err != nil {
		t.Fatalf("WaitStopped after the instance closed: %v", err)
	}
	if _, err := Dial(t.Context(), p); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Dial after Quit = %v, want ErrNotRunning", err)
	}
}

// TestQuitRefused: a server without Quit refuses it in plain words.
func TestQuitRefused(t *testing.T) {
	t.Parallel()
	p := testPaths(t)
	serve(t, p)
	cl, err := Dial(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var serr *service.Error
	if err := cl.Quit(t.Context()); !errors.As(err, &serr) || serr.Code != service.NotAllowed || serr.Msg == "" {
		t.Errorf("Quit = %v, want a NotAllowed error that says why", err)
	}
	if _, err := cl.Snapshot(t.Context()); err != nil {
		t.Errorf("after a refused Quit the running mcptray does not answer: %v", err)
	}
}

// TestOlder: a request the running mcptray does not know, as one from a
// newer mcptray after an upgrade, fails with ErrOlder, which the command
// line puts in plain words.
func TestOlder(t *testing.T) {
	t.Parallel()
	p := testPaths(t)
	serve(t, p)
	cl, err := Dial(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.do(t.Context(), "POST", "from-a-newer-mcptray", struct{}{}, nil); !errors.Is(err, ErrOlder) {
		t.Errorf("an unknown request = %v, want ErrOlder", err)
	}
	// What the running mcptray refuses in its own words stays in them.
	var serr *service.Error
	if _, err := cl.Approve(t.Context(), "nosuch"); !errors.As(err, &serr) || errors.Is(err, ErrOlder) {
		t.Errorf("approving an unknown server = %v, want the running mcptray's own error", err)
	}
}
