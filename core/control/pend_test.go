package control

import (
	"context"
	"testing"
	"time"
)

// TestPendedBundleReachesTheStartingWindow: a bundle opened from the file
// manager while the window process is starting (it does not follow focus
// requests yet) is the first thing the window gets once it does.
func TestPendedBundleReachesTheStartingWindow(t *testing.T) {
	t.Parallel()
	p := testPaths(t)
	srv, _ := serve(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	srv.Pend(WindowRequest{Bundle: "/home/me/Downloads/old.mcpb"})
	srv.Pend(WindowRequest{Bundle: "/home/me/Downloads/notes.mcpb"}) // the newest wins
	cl, err := Dial(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	focus, err := cl.FocusRequests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-focus:
		if got.Bundle != "/home/me/Downloads/notes.mcpb" {
			t.Errorf("the window first got %+v", got)
		}
	case <-ctx.Done():
		t.Fatal("the pended bundle never reached the window")
	}
	// Taken once: a window that follows again does not get it twice.
	cl2, err := Dial(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer cl2.Close()
	again, err := cl2.FocusRequests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	srv.FocusOn(WindowRequest{Server: "github"})
	if got := <-again; got.Bundle != "" {
		t.Errorf("the pended bundle came again: %+v", got)
	}
}
