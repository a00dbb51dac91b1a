package oauth

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestForgedCallbackIsIgnored: a request to the loopback listener with
// another state, sent before the browser comes back, is turned away with a
// 400 and does not end the sign-in; the real answer that follows signs in.
func TestForgedCallbackIsIgnored(t *testing.T) {
	t.Parallel()
	as := newTestAS(t)
	forged := make(chan int, 1)
	browser := func(ctx context.Context, authURL string) error {
		au, err := url.Parse(authURL)
		if err != nil {
			return err
		}
		cb, err := url.Parse(au.Query().Get("redirect_uri"))
		if err != nil {
			return err
		}
		cb.RawQuery = url.Values{"state": {"forged"}, "code": {"stolen"}}.Encode()
		go func() {
			resp, err := http.Get(cb.String())
			if err != nil {
				forged <- 0
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			forged <- resp.StatusCode
			// Only now does the real browser come back.
			if resp, err := http.Get(authURL); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		return nil
	}
	m := New(Options{Store: newMemStore(), Browser: browser, LockDir: t.TempDir(), SignInTimeout: 20 * time.Second})
	ctx := context.Background()
	if err := m.SignIn(ctx, as.server(), nil); err != nil {
		t.Fatalf("SignIn after a forged callback: %v", err)
	}
	if status := <-forged; status != http.StatusBadRequest {
		t.Errorf("the forged callback got HTTP %d; want 400", status)
	}
	tok, err := m.TokenSource(as.server()).Token(ctx)
	if err != nil || !strings.HasPrefix(tok, "access-") {
		t.Errorf("Token = %q, %v; want the real sign-in's token", tok, err)
	}
}
