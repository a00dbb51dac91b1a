package window

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcptray/mcptray/core/oauth"
	"github.com/mcptray/mcptray/core/service"
	"github.com/mcptray/mcptray/test/authserver"
)

// TestRealSignIn: against the in-repo authorization server, pressing Sign
// in… on a server that needs it opens the browser; the state changes to
// connected when the browser comes back to mcptray's loopback address, and
// the waiting dialog goes away.
func TestRealSignIn(t *testing.T) {
	srv := authserver.Start()
	t.Cleanup(srv.Close)
	cmd, err := authserver.BrowserCommand(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	follow := oauth.CommandBrowser(oauth.ParseBrowserCommand(cmd))
	opened := make(chan string, 4)
	browser := func(ctx context.Context, u string) error {
		opened <- u
		return follow(ctx, u)
	}
	r := newReal(t, map[string]any{"mcpServers": map[string]any{"notes": map[string]any{"url": srv.MCPURL}}}, withBrowser(browser))
	r.until("notes to need sign-in", func() bool { return r.shows("notes", service.NeedsAuth) })
	r.v.do(func() { r.v.focus("notes") })
	if d := r.v.detail; d.fix.Text != "Sign in…" || d.fix.Disabled() {
		t.Fatalf("notes's fix button says %q (disabled %v)", d.fix.Text, d.fix.Disabled())
	}
	r.tap(r.v.detail.fix)
	select {
	case u := <-opened:
		if !strings.HasPrefix(u, srv.Issuer) {
			t.Errorf("the browser opened %q, not the authorization server %s", u, srv.Issuer)
		}
	case <-time.After(realDeadline):
		t.Fatal("Sign in… opened no browser")
	}
	r.until("notes to connect", func() bool { return r.shows("notes", service.Connected) })
	r.until("the sign-in dialog to go", func() bool { return r.win.Canvas().Overlays().Top() == nil })
	if len(r.v.errs) != 0 {
		t.Errorf("errors shown: %q", r.v.errs)
	}
}

// TestRealSignInCancel: Cancel, while the browser has not come back, ends
// the sign-in and leaves the server needing one, with no error shown.
func TestRealSignInCancel(t *testing.T) {
	srv := authserver.Start()
	t.Cleanup(srv.Close)
	opened := make(chan string, 4)
	// A browser that shows the page and never comes back.
	browser := func(_ context.Context, u string) error {
		opened <- u
		return nil
	}
	r := newReal(t, map[string]any{"mcpServers": map[string]any{"notes": map[string]any{"url": srv.MCPURL}}}, withBrowser(browser))
	r.until("notes to need sign-in", func() bool { return r.shows("notes", service.NeedsAuth) })
	r.v.do(func() { r.v.focus("notes") })
	r.tap(r.v.detail.fix)
	select {
	case <-opened:
	case <-time.After(realDeadline):
		t.Fatal("Sign in… opened no browser")
	}
	if r.win.Canvas().Overlays().Top() == nil {
		t.Fatal("no dialog waits for the browser")
	}
	r.tap(r.v.signInCancel)
	r.until("the sign-in dialog to go", func() bool { return r.win.Canvas().Overlays().Top() == nil })
	snap, err := r.cl.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sv, _ := snap.Find("notes"); sv.State != service.NeedsAuth {
		t.Errorf("after Cancel notes is %v (%s), want needs sign-in", sv.State, sv.Reason)
	}
	if len(r.v.errs) != 0 {
		t.Errorf("cancelling showed errors: %q", r.v.errs)
	}
}
